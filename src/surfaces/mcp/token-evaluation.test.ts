import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { codeMode } from '../../app/code-mode.js';
import type { CodeExecutor } from '../../composition/code/code-executor.js';
import { parseConfigValue } from '../../config/load-config.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import { loadTokenCounter } from '../../foundation/ports/token-counter.js';
import type { Dataset } from '../../sources/dataset/dataset-source.js';
import { METATOOLS } from './metatools.js';
import { runTokenEvaluation } from './token-evaluation.js';

const dataset: Dataset = {
  tools: [
    {
      id: 'clock/now',
      name: 'now',
      namespace: 'clock',
      description: 'Current time in a timezone.',
      input_schema: { type: 'object', properties: { tz: { type: 'string' } } },
    },
    {
      id: 'pdf/merge',
      name: 'merge',
      namespace: 'pdf',
      description: 'Merge PDF files into one.',
      input_schema: { type: 'object', properties: { files: { type: 'array', items: { type: 'string' } } } },
    },
  ],
  queries: [
    { id: 'q1', query: 'current time in Tokyo', relevant: ['clock/now'] },
    // Its relevant tool is not what the search ranks first: outside a top-1 answer.
    { id: 'q2', query: 'merge pdf files', relevant: ['clock/now'] },
  ],
};

async function evaluate(k: number, budgetTokens = 3000, code?: CodeExecutor, pinned?: string[]) {
  const { config } = parseConfigValue({});
  return runTokenEvaluation(dataset, {
    counter: await loadTokenCounter('o200k_base'),
    settings: { ...config.search, strategy: 'bm25' },
    budgetTokens,
    pinned,
    k,
    ...(code ? { code } : {}),
    log: silentLogger,
  });
}

/** The flat `tools/list` the gateway sends for {@link dataset}, written out by hand. */
const FLAT_LIST = [
  {
    name: 'clock__now',
    title: 'now',
    description: 'Current time in a timezone.',
    inputSchema: { type: 'object', properties: { tz: { type: 'string' } } },
    annotations: {},
  },
  {
    name: 'pdf__merge',
    title: 'merge',
    description: 'Merge PDF files into one.',
    inputSchema: { type: 'object', properties: { files: { type: 'array', items: { type: 'string' } } } },
    annotations: {},
  },
];

/** The metatools `tools/list` without code mode, toolsets or skills, from their definitions. */
const METATOOL_LIST = METATOOLS.filter((m) => m.requires === undefined).map(listed);

/** A metatool as `tools/list` shows it: no `annotations` key when it has no hints. */
function listed(m: (typeof METATOOLS)[number]) {
  return {
    name: m.name,
    title: m.title,
    description: m.description,
    inputSchema: m.inputSchema,
    ...(Object.keys(m.annotations).length > 0 ? { annotations: m.annotations } : {}),
  };
}

describe('runTokenEvaluation', () => {
  it('counts the flat and the metatools tools/list the gateway sends, checked against the tokenizer', async () => {
    const report = await evaluate(5);
    expect(report.tools).toBe(2);
    expect(report.flatListTokens).toBe(countTokens(JSON.stringify(FLAT_LIST)));
    expect(report.flatTokensPerTool).toBe(Math.round((report.flatListTokens / 2) * 10) / 10);
    expect(report.metatoolSurfaceTokens).toBe(countTokens(JSON.stringify(METATOOL_LIST)));
    expect(report.modes.flat).toEqual({
      tokensPerTask: report.flatListTokens,
      hits: 2,
      tokensPerSuccess: report.flatListTokens,
    });
  });

  it('adds the search answer and one describe_tool of the top result per task in metatools', async () => {
    const report = await evaluate(1);
    // What search_tools (limit 1) and describe_tool (schema) answer for q1, written out by hand.
    const searchAnswer = {
      tools: [
        {
          id: 'clock:now',
          name: 'now',
          namespace: 'clock',
          description: 'Current time in a timezone.',
          tags: [],
          // BM25F 1.4355…, × 1.5 by the server stage (clock is the only server the query matches).
          score: 2.153267868603381,
        },
      ],
      strategy: 'bm25',
    };
    const described = {
      summary: 'clock:now — Current time in a timezone. Parameters: tz (string).',
      tool: {
        id: 'clock:now',
        name: 'now',
        namespace: 'clock',
        description: 'Current time in a timezone.',
        annotations: {},
        tags: [],
        title: 'now',
        inputSchema: { type: 'object', properties: { tz: { type: 'string' } } },
        metadata: { extra: { datasetId: 'clock/now' } },
      },
    };
    expect(report.runs[0]).toEqual({
      id: 'q1',
      found: true,
      top: 'clock/now',
      metatoolsTokens:
        countTokens(JSON.stringify(METATOOL_LIST)) +
        countTokens(JSON.stringify(searchAnswer)) +
        countTokens(JSON.stringify(described)),
    });
    const [q1, q2] = report.runs.map((r) => r.metatoolsTokens);
    expect(report.modes.metatools.tokensPerTask).toBe(((q1 ?? 0) + (q2 ?? 0)) / 2);
  });

  it('counts a relevant tool outside the top k of the search answer as a miss', async () => {
    const report = await evaluate(1);
    // q2's relevant tool is clock/now; the search ranks pdf/merge first, and k = 1 stops there.
    expect(report.runs[1]).toMatchObject({ id: 'q2', found: false, top: 'pdf/merge' });
    expect(report.modes.metatools.hits).toBe(1);
    const total = (report.runs[0]?.metatoolsTokens ?? 0) + (report.runs[1]?.metatoolsTokens ?? 0);
    expect(report.modes.metatools.tokensPerSuccess).toBe(total);
    expect(report.modes.flat.hits).toBe(2);
  });

  it("reports auto as the mode the gateway's auto exposure picks for the catalog", async () => {
    const small = await evaluate(5, 3000);
    expect(small.autoChose).toBe('flat');
    // auto lists the metatools and every tool: one list, every relevant tool read.
    expect(small.modes.auto.hits).toBe(2);
    expect(small.modes.auto.tokensPerTask).toBe(
      countTokens(JSON.stringify([...METATOOL_LIST, ...FLAT_LIST])),
    );
    const tight = await evaluate(5, 1);
    expect(tight.autoChose).toBe('metatools');
    expect(tight.modes.auto).toEqual(tight.modes.metatools);
  });

  it('derives the break-even catalog size from the per-tool flat cost and the metatools cost per task', async () => {
    const report = await evaluate(5);
    expect(report.breakEvenTools).toBe(
      Math.round(report.modes.metatools.tokensPerTask / (report.flatListTokens / report.tools)),
    );
  });

  it('includes execute_code and code_api in the surface when code mode is on', async () => {
    const code = codeMode(parseConfigValue({}).config.codeMode);
    try {
      const report = await evaluate(5, 3000, code?.executor);
      const served = METATOOLS.filter((m) => m.requires === undefined || m.requires === 'code');
      expect(served.map((m) => m.name)).toEqual(expect.arrayContaining(['execute_code', 'code_api']));
      expect(report.codeMode).toBe(true);
      expect(report.metatoolSurfaceTokens).toBe(countTokens(JSON.stringify(served.map(listed))));
    } finally {
      await code?.close();
    }
  });

  it('counts pinned tools in the metatools surface (and auto), and a query for a pinned tool needs no search', async () => {
    const report = await evaluate(1, 1, undefined, ['clock:*']);
    const surface = countTokens(JSON.stringify([...METATOOL_LIST, FLAT_LIST[0]]));
    expect(report.pinned).toEqual(['clock/now']);
    expect(report.metatoolSurfaceTokens).toBe(surface);
    // Both queries want clock/now, which the list already shows: read, found, no search or describe.
    expect(report.runs).toEqual([
      { id: 'q1', metatoolsTokens: surface, found: true, pinned: true },
      { id: 'q2', metatoolsTokens: surface, found: true, pinned: true },
    ]);
    // A budget of 1 token keeps auto from listing the catalog; the pinned tool is listed anyway.
    expect(report.autoChose).toBe('metatools');
    expect(report.modes.auto).toEqual({ tokensPerTask: surface, hits: 2, tokensPerSuccess: surface });
    expect(report.modes.metatools).toEqual(report.modes.auto);
    expect((await evaluate(1, 1)).pinned).toEqual([]);
  });
});
