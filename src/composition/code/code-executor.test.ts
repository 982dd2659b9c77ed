import { afterAll, describe, expect, it } from 'vitest';
import { makeEntry, makeTool } from '../../../test/support/test-tools.js';
import { Catalog } from '../../catalog/catalog.js';
import { ToolSearch } from '../../discovery/tool-search.js';
import { createQuickJsSandbox } from '../../execution/code/quickjs-sandbox.js';
import { RunPipeline } from '../../execution/run-pipeline.js';
import type { ClientChannel } from '../../foundation/ports/client-channel.js';
import { SchemaValidator } from '../../foundation/schema/schema-validator.js';
import { ToolScope } from '../tool-scope.js';
import { CodeExecutor } from './code-executor.js';

const sandbox = createQuickJsSandbox({ poolSize: 1 });
afterAll(() => sandbox.close());

function setup() {
  const catalog = new Catalog();
  catalog.replaceSource('s', [
    makeEntry(makeTool('open:echo', { inputSchema: { type: 'object' } }), async (_t, args) => ({
      echoed: args,
    })),
    makeEntry(makeTool('secret:read', { inputSchema: { type: 'object' } }), async () => ({
      secret: 'hunter2',
    })),
    makeEntry(makeTool('open:list_text', { inputSchema: { type: 'object' } }), async () => '[1,2]'),
    makeEntry(makeTool('open:words', { inputSchema: { type: 'object' } }), async () => 'just words'),
    makeEntry(makeTool('open:surface', { inputSchema: { type: 'object' } }), async (_t, _a, ctx) => ({
      surface: ctx.caller.surface ?? 'none',
    })),
    makeEntry(makeTool('open:ask', { inputSchema: { type: 'object' } }), async (_t, _a, ctx) => ({
      answer: ctx.channel ? await ctx.channel.request('roots/list', {}) : 'no channel',
    })),
  ]);
  const pipeline = new RunPipeline({ catalog, validator: new SchemaValidator() });
  const deps = { catalog, search: new ToolSearch(catalog), pipeline, maxChainSteps: 5 };
  const scoped = new ToolScope(deps, { name: 'open-only', isVisible: (t) => t.namespace === 'open' });
  const executor = new CodeExecutor({
    sandbox,
    defaults: { timeoutMs: 5000, maxToolCalls: 10, memoryMb: 32 },
    maxima: { timeoutMs: 10_000, maxToolCalls: 20, memoryMb: 64 },
    maxLogBytes: 10_000,
    maxResultBytes: 100_000,
  });
  return { scoped, executor };
}

const call = { caller: { identity: 'test' } };

describe('CodeExecutor', () => {
  it('reaches tools through the caller scope and records each call', async () => {
    const { scoped, executor } = setup();
    const result = await executor.execute(scoped, { code: `return await tools.open.echo({ n: 1 })` }, call);
    expect(result.value).toEqual({ echoed: { n: 1 } });
    expect(result.toolCalls).toEqual([expect.objectContaining({ tool_id: 'open:echo', ok: true })]);
  });

  it("marks a program's tool calls as code mode's, whichever surface ran the program", async () => {
    const { scoped, executor } = setup();
    const result = await executor.execute(
      scoped,
      { code: `return await tools.open.surface({})` },
      {
        caller: { identity: 'test', surface: 'mcp' },
      },
    );
    expect(result.value).toEqual({ surface: 'code' });
  });

  it("gives a program's tool calls the way back to the client that ran the program", async () => {
    const { scoped, executor } = setup();
    const asked: string[] = [];
    const channel = {
      request: async (method: string) => {
        asked.push(method);
        return { roots: [] };
      },
    } as unknown as ClientChannel;
    const result = await executor.execute(
      scoped,
      { code: `return await tools.open.ask({})` },
      { ...call, channel },
    );
    expect(result.value).toEqual({ answer: { roots: [] } });
    expect(asked).toEqual(['roots/list']);
  });

  it("a tool's text result is parsed as JSON of any type, else kept as text (as in chains and skills)", async () => {
    const { scoped, executor } = setup();
    const result = await executor.execute(
      scoped,
      { code: `return [await tools.open.list_text({}), await tools.open.words({})]` },
      call,
    );
    expect(result.value).toEqual([[1, 2], 'just words']);
  });

  it('cannot reach a tool outside the caller scope, by id, proxy or search', async () => {
    const { scoped, executor } = setup();
    const result = await executor.execute(
      scoped,
      {
        code: `
          let byId;
          try { await tools.call('secret:read', {}); byId = 'reached'; } catch (e) { byId = e.code; }
          const proxy = typeof tools.secret;
          const found = (await tools.search('read secret', { limit: 10 })).tools.map((t) => t.id);
          let described;
          try { await tools.describe('secret:read'); described = 'reached'; } catch (e) { described = e.code; }
          return { byId, proxy, found, described };
        `,
      },
      call,
    );
    expect(result.value).toEqual({
      byId: 'tool_not_found',
      proxy: 'undefined',
      found: [],
      described: 'tool_not_found',
    });
    expect(JSON.stringify(result)).not.toContain('hunter2');
  });

  it('strips TypeScript and refuses limits above the maxima', async () => {
    const { scoped, executor } = setup();
    const typed = await executor.execute(
      scoped,
      { code: 'const n: number = 2;\nreturn n * 21;', language: 'typescript' },
      call,
    );
    expect(typed.value).toBe(42);
    await expect(
      executor.execute(scoped, { code: 'return 1', max_tool_calls: 21 }, call),
    ).rejects.toMatchObject({
      code: 'validation_input',
    });
  });
});
