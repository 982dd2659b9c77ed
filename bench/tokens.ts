#!/usr/bin/env node
/**
 * What each exposure costs an agent per task, in tokens: `aperture eval --tokens --json` through the
 * CLI exactly as a user runs it, on the tool-retrieval benchmark sets (large query files sampled,
 * every n-th) and on synthetic 5-, 50-, 500- and 5,000-tool catalogs written to a temporary folder.
 *
 *   npm run build
 *   npx tsx bench/tokens.ts [--benchmarks DIR] [--sizes 5,50,500,5000] [--queries 50] [--sample 200]
 *     [--encoding o200k_base] [--k 5]
 *
 * Synthetic queries are each tool's first description sentence ("Create an issue in GitHub."), the
 * relevant tools those with the same first sentence (several instances of one service share it):
 * an easy, lexical query, so the metatools hit rate there is an upper bound of what agents see.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DEFAULT_BENCHMARKS, GATEWAY_CLI, machine, option, runIfMain, table } from './lib/common.js';
import { prng, syntheticTools } from './lib/synthetic-catalog.js';

const exec = promisify(execFile);

/** The benchmark sets, with a sample of the large query files. */
function benchmarkSets(sample: number) {
  return [
    { key: 'toollens test', dir: 'toollens', args: ['--sample', String(sample)] },
    { key: 'livemcpbench', dir: 'livemcpbench', args: [] },
    { key: 'toolbench-stb', dir: 'toolbench-stb', args: ['--sample', String(sample)] },
    { key: 'metatool single', dir: 'metatool', args: ['--sample', String(sample)] },
    {
      key: 'metatool multi',
      dir: 'metatool',
      args: ['--queries', 'queries_multi.jsonl', '--sample', String(sample)],
    },
  ];
}

/** Writes a synthetic catalog of `size` tools and `queries` labelled queries as a dataset folder. */
async function writeSynthetic(dir: string, size: number, queries: number): Promise<void> {
  const tools = syntheticTools(size);
  const firstSentence = (text: string) => text.split('. ')[0]!.replace(/\.$/, '');
  const bySentence = new Map<string, string[]>();
  for (const tool of tools) {
    const sentence = firstSentence(tool.description);
    bySentence.set(sentence, [...(bySentence.get(sentence) ?? []), tool.id]);
  }
  const rand = prng(size);
  const lines = Array.from({ length: Math.min(queries, size) }, (_, i) => {
    const tool = tools[Math.floor(rand() * tools.length)]!;
    const query = firstSentence(tool.description);
    return { id: `q${i + 1}`, query, relevant: bySentence.get(query) ?? [tool.id] };
  });
  await mkdir(dir, { recursive: true });
  const toolLines = tools.map((t) => ({
    id: t.id,
    name: t.name,
    namespace: t.namespace,
    description: t.description,
    input_schema: t.inputSchema,
  }));
  await writeFile(path.join(dir, 'tools.jsonl'), `${toolLines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  await writeFile(path.join(dir, 'queries.jsonl'), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
}

async function evaluate(dataset: string, args: string[]) {
  const encoding = option('encoding', 'o200k_base');
  const k = option('k', 5);
  const { stdout } = await exec(
    process.execPath,
    [
      GATEWAY_CLI,
      'eval',
      '--dataset',
      dataset,
      ...args,
      '--tokens',
      '--encoding',
      encoding,
      '--k',
      String(k),
      '--json',
    ],
    { maxBuffer: 64 * 2 ** 20 },
  );
  return JSON.parse(stdout);
}

export async function run() {
  const benchmarks = option('benchmarks', DEFAULT_BENCHMARKS);
  const sizes = option('sizes', '5,50,500,5000').split(',').map(Number);
  const queries = option('queries', 50);
  const sample = option('sample', 200);
  const results: Record<string, any> = { machine: machine(), sets: [] };
  const work = await mkdtemp(path.join(tmpdir(), 'aperture-tokens-'));
  try {
    for (const size of sizes) {
      process.stderr.write(`tokens: synthetic ${size}\n`);
      const dir = path.join(work, `synthetic-${size}`);
      await writeSynthetic(dir, size, queries);
      results.sets.push({ key: `synthetic ${size.toLocaleString('en-US')}`, ...(await evaluate(dir, [])) });
    }
    if (existsSync(path.join(benchmarks, 'toollens', 'tools.jsonl'))) {
      for (const set of benchmarkSets(sample)) {
        process.stderr.write(`tokens: ${set.key}\n`);
        results.sets.push({ key: set.key, ...(await evaluate(path.join(benchmarks, set.dir), set.args)) });
      }
    } else {
      process.stderr.write(`tokens: no benchmark sets at ${benchmarks}, synthetic catalogs only\n`);
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return results;
}

export function render(results: any) {
  const first = results.sets[0];
  const rows = results.sets.map((s: any) => {
    const found = (m: any) => `${Math.round((m.hits / Math.max(1, s.queries)) * 100)} %`;
    return [
      s.key,
      s.tools.toLocaleString('en-US'),
      s.queries,
      s.flatListTokens.toLocaleString('en-US'),
      s.flatTokensPerTool,
      `${s.metatoolSurfaceTokens} + ${s.searchAnswerTokens} + ${s.describeTokens}`,
      s.modes.metatools.tokensPerTask.toLocaleString('en-US'),
      found(s.modes.metatools),
      (s.modes.metatools.tokensPerSuccess ?? '—').toLocaleString('en-US'),
      s.autoChose,
      s.modes.auto.tokensPerTask.toLocaleString('en-US'),
      (s.modes.auto.tokensPerSuccess ?? '—').toLocaleString('en-US'),
      s.breakEvenTools ?? '—',
    ];
  });
  return [
    `## Tokens per task (${first?.encoding ?? '?'}, search limit k = ${first?.k ?? '?'}, code mode ${first?.codeMode ? 'on' : 'off'}, ${results.machine.git}, ${results.machine.date.slice(0, 10)})`,
    '',
    table(
      [
        'set',
        'tools',
        'queries',
        'flat tokens/task (= per success)',
        'flat per tool',
        'metatools: surface + search + describe',
        'metatools tokens/task',
        'found in top k',
        'metatools tokens/success',
        'auto chose',
        'auto tokens/task',
        'auto tokens/success',
        'break-even tools',
      ],
      rows,
    ),
    '',
  ].join('\n');
}

runIfMain(import.meta.url, run, render);
