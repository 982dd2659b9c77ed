import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectHttp,
  type DisposableClient,
  FIXTURE_CONFIG,
  type RunningGateway,
  startHttpGateway,
  structured,
} from './gateway-process.js';

describe('code mode (execute_code) through the gateway', () => {
  let gateway: RunningGateway;
  let client: DisposableClient;

  beforeAll(async () => {
    gateway = await startHttpGateway(['--config', FIXTURE_CONFIG]);
    client = await connectHttp(gateway.url);
  });

  afterAll(async () => {
    await client?.[Symbol.asyncDispose]();
    await gateway?.[Symbol.asyncDispose]();
  });

  const run = (args: Record<string, unknown>) => client.callTool({ name: 'execute_code', arguments: args });

  it('is listed with code_api', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['execute_code', 'code_api']));
  });

  it('runs a program that calls several tools and returns only what matters', async () => {
    const result = await run({
      code: `
        const stats = await tools.call('text:stats', { text: 'One two three. Four five.' });
        const sum = await tools.fixture.add({ a: stats.words, b: stats.sentences });
        const diagram = await tools['plantuml']['encode']({ source: 'A -> B' });
        console.log('words', stats.words);
        return { total: sum.sum, encoded: diagram.encoded.length > 0 };
      `,
    });
    expect(result.isError).toBeFalsy();
    const out = structured(result);
    expect(out.value).toEqual({ total: 7, encoded: true });
    expect(out.toolCalls.map((c: { tool_id: string; ok: boolean }) => [c.tool_id, c.ok])).toEqual([
      ['text:stats', true],
      ['fixture:add', true],
      ['plantuml:encode', true],
    ]);
    expect(out.logs).toEqual([{ level: 'log', message: 'words 5' }]);
    expect(typeof out.durationMs).toBe('number');
  });

  it('runs TypeScript with its types stripped', async () => {
    const result = await run({
      language: 'typescript',
      code: `interface Sum { sum: number }\nconst r: Sum = (await tools.call('fixture:add', { a: 1, b: 2 })) as Sum;\nreturn r.sum satisfies number;`,
    });
    expect(structured(result).value).toBe(3);
  });

  it('lets a program catch a failed tool call by its gateway code', async () => {
    const result = await run({
      code: `try { await tools.call('nope:missing', {}); return 'no'; } catch (e) { return { code: e.code, message: e.message }; }`,
    });
    const value = structured(result).value;
    expect(value.code).toBe('tool_not_found');
    expect(value.message).toContain('nope:missing');
    expect(structured(result).toolCalls).toEqual([
      expect.objectContaining({ tool_id: 'nope:missing', ok: false, code: 'tool_not_found' }),
    ]);
  });

  it('reports syntax errors with line and column, uncaught errors as execution_failed', async () => {
    const syntax = await run({ code: 'const a = 1;\nconst = 2;' });
    expect(syntax.isError).toBe(true);
    expect(structured(syntax).error.code).toBe('invalid_request');
    expect(structured(syntax).error.details.line).toBe(2);

    const ts = await run({ code: 'const a: number = 1;\nlet b: = 2;', language: 'typescript' });
    expect(structured(ts).error).toMatchObject({ code: 'invalid_request', details: { line: 2 } });

    const thrown = await run({ code: `throw new Error('broken program')` });
    expect(structured(thrown).error.code).toBe('execution_failed');
    expect(structured(thrown).error.message).toContain('broken program');
  });

  it('stops an endless loop at its deadline while the gateway keeps answering', async () => {
    const loop = run({ code: 'while (true) {}', timeout_ms: 1500 });
    const started = Date.now();
    const quick = await client.callTool({ name: 'fixture__add', arguments: { a: 1, b: 1 } });
    const quickMs = Date.now() - started;
    expect(structured(quick)).toEqual({ sum: 2 });
    expect(quickMs).toBeLessThan(1500);
    const result = await loop;
    expect(structured(result).error.code).toBe('timeout');
    // And code mode still works afterwards.
    expect(structured(await run({ code: 'return 40 + 2' })).value).toBe(42);
  });

  it('enforces the tool-call limit with its own message', async () => {
    const result = await run({
      code: `for (let i = 0; i < 50; i++) await tools.fixture.noop({}); return 'done';`,
      max_tool_calls: 5,
    });
    expect(structured(result).error.code).toBe('sandbox_violation');
    expect(structured(result).error.message).toMatch(/5 tool calls/);
  });

  it('refuses limits above the configured maxima', async () => {
    const result = await run({ code: 'return 1', timeout_ms: 10_000_000 });
    expect(structured(result).error.code).toBe('validation_input');
    expect(structured(result).error.message).toContain('timeout_ms');
  });

  it('serves TypeScript declarations through code_api and describe_tool', async () => {
    const api = structured(await client.callTool({ name: 'code_api', arguments: { namespace: 'plantuml' } }));
    expect(api.declarations).toContain('plantuml: {');
    expect(api.declarations).toMatch(/encode\(args: \{/);
    expect(api.declarations).not.toContain('fixture: {');
    const described = structured(
      await client.callTool({
        name: 'describe_tool',
        arguments: { tool_id: 'fixture:add', format: 'typescript' },
      }),
    );
    expect(described.formatted).toContain('add(args: {');
    expect(described.formatted).toContain('Promise<{');
    const none = await client.callTool({ name: 'code_api', arguments: { namespace: 'nope' } });
    expect(structured(none).error.code).toBe('invalid_request');
  });
});
