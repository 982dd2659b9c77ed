import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectHttp,
  type DisposableClient,
  ROOT,
  type RunningGateway,
  startHttpGateway,
  structured,
} from './gateway-process.js';

const SERVER = path.join(ROOT, 'test/fixtures/mcp/wrong-schema-server.mjs');

/** The fix for the fixture server's wrong schema, kept in an overrides file of its own. */
const OVERRIDES = `
"rec:search_records":
  inputSchema:
    properties:
      limit: { type: integer, minimum: 1, description: Most records returned }
      apiVersion: { const: "2" }
      debug: null
  metadata: { category: records, cost: 2, latencyMs: 30, sideEffects: false, notes: Reads only. }
  examples:
    - { title: Five invoices, args: { query: invoice, limit: 5 } }
`;

function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((c) => c.text ?? '').join('\n');
}

/**
 * A downstream server (a real process) whose tool advertises a wrong input schema, fixed by a
 * merge patch in an overrides file: callers see and are validated against the fixed schema, and
 * the call still reaches the downstream with exactly the arguments it expects.
 */
describe('a schema patch fixes a downstream tool’s wrong input schema', () => {
  let dir: string;
  let gateway: RunningGateway;
  let client: DisposableClient;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-schema-patch-'));
    await writeFile(path.join(dir, 'overrides.yaml'), OVERRIDES);
    await writeFile(
      path.join(dir, 'aperture.yaml'),
      [
        'servers:',
        `  rec: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(SERVER)}] }`,
        'tools: { builtin: false }',
        'exposure: { mode: metatools, pinned: ["rec:search_*"] }',
        'overrides: [./overrides.yaml]',
        '',
      ].join('\n'),
    );
    gateway = await startHttpGateway(['--config', path.join(dir, 'aperture.yaml')], dir);
    client = await connectHttp(gateway.url);
    // The downstream connects in the background: wait (bounded) until its tool is listed.
    for (let i = 0; i < 100; i++) {
      const { tools } = await client.listTools();
      if (tools.some((t) => t.name === 'rec__search_records')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }, 30_000);

  afterAll(async () => {
    await client?.[Symbol.asyncDispose]();
    await gateway?.[Symbol.asyncDispose]();
    await rm(dir, { recursive: true, force: true });
  });

  it('lists the pinned tool beside the metatools with the patched schema and the downstream’s _meta', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain('search_tools');
    expect(names).toContain('rec__search_records');
    const tool = tools.find((t) => t.name === 'rec__search_records');
    expect(tool?.inputSchema).toEqual({
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Words to look for' },
        limit: { type: 'integer', minimum: 1, description: 'Most records returned' },
        apiVersion: { type: 'string', const: '2' },
      },
      required: ['query', 'limit'],
      additionalProperties: false,
    });
    expect(tool?._meta).toEqual({
      'com.example/owner': 'records-team',
      'com.example/ui': { resourceUri: 'ui://records/table' },
    });
  });

  it('run_tool reaches the downstream with the arguments it expects: the pinned value filled in', async () => {
    const result = await client.callTool({
      name: 'run_tool',
      arguments: { tool_id: 'rec:search_records', args: { query: 'invoice', limit: 5 } },
    });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(structured(result)).toEqual({ received: { query: 'invoice', limit: 5, apiVersion: '2' } });
  });

  it('the pinned tool is callable by its listed name, the same way, its result’s _meta passed through', async () => {
    const result = await client.callTool({
      name: 'rec__search_records',
      arguments: { query: 'a', limit: 1 },
    });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(structured(result)).toEqual({ received: { query: 'a', limit: 1, apiVersion: '2' } });
    expect(result._meta).toEqual({ 'com.example/page': 1 });
  });

  it('arguments the fixed schema refuses are the caller’s fault and never reach the downstream', async () => {
    // A string limit is what the wrong schema asked for; the dropped `debug` is no longer accepted.
    for (const args of [
      { query: 'a', limit: '5' },
      { query: 'a', limit: 5, debug: true },
      { query: 'a', limit: 5, apiVersion: '1' },
    ]) {
      const result = await client.callTool({
        name: 'run_tool',
        arguments: { tool_id: 'rec:search_records', args },
      });
      expect(result.isError).toBe(true);
      expect(structured(result).error.code, JSON.stringify(args)).toBe('validation_input');
    }
  });

  it('metadata and examples are visible to search filters, describe and the manifest', async () => {
    const found = await client.callTool({
      name: 'search_tools',
      arguments: { query: 'records', category: 'records' },
    });
    expect(structured(found).tools.map((t: { id: string }) => t.id)).toEqual(['rec:search_records']);
    const tooDear = await client.callTool({
      name: 'search_tools',
      arguments: { query: 'records', max_cost: 1 },
    });
    expect(structured(tooDear).tools).toEqual([]);
    const described = await client.callTool({
      name: 'describe_tool',
      arguments: { tool_id: 'rec:search_records', detail_level: 'full' },
    });
    const { tool, examples } = structured(described);
    expect(tool.metadata).toMatchObject({
      category: 'records',
      cost: 2,
      latencyHintMs: 30,
      sideEffect: false,
    });
    expect(tool.notes).toBe('Reads only.');
    expect(tool._meta['com.example/owner']).toBe('records-team');
    expect(examples).toEqual([{ title: 'Five invoices', args: { query: 'invoice', limit: 5 } }]);
    const manifest = (await (await fetch(`${gateway.url}/.well-known/mcp/manifest.json`)).json()) as {
      tools: Record<string, unknown>[];
    };
    const entry = manifest.tools.find((t) => t.id === 'rec:search_records');
    expect(entry).toMatchObject({
      metadata: { category: 'records', cost: 2 },
      _meta: { 'com.example/owner': 'records-team' },
      examples: [{ title: 'Five invoices' }],
    });
  });
});
