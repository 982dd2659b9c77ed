import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/app/gateway.js';
import { failure } from '../support/expect-failure.js';
import { faultyServer, waitFor } from '../support/fixture-servers.js';
import { gatewayFrom } from '../support/in-process-gateway.js';

/**
 * Search learns from what runs do, through the real pipeline and a real downstream MCP server:
 * tool failures sink a tool, a search followed by a successful run teaches the query; a broken
 * embedder never stops the gateway.
 */
describe('search feedback through the pipeline', () => {
  let gateway: Gateway;
  const caller = { identity: 'agent', sessionId: 'session-1' };
  const ids = async (query: string, session?: string) =>
    (await gateway.scope.search({ query, limit: 5, ...(session ? { session } : {}) })).tools.map((t) => t.id);

  beforeAll(async () => {
    gateway = await gatewayFrom({ tools: { builtin: false }, servers: { f: faultyServer() } });
    await waitFor('the fixture server', () => gateway.readiness().ready && gateway.catalog.size > 0, 15_000);
  });
  afterAll(() => gateway?.close());

  it('sinks a tool whose runs fail (execution_failed), but not below its exact name', async () => {
    const query = 'return text message';
    const before = await ids(query);
    expect(before).toEqual(expect.arrayContaining(['f:fail', 'f:echo']));
    expect(before.indexOf('f:fail')).toBeLessThan(before.indexOf('f:echo'));
    for (let i = 0; i < 3; i++) {
      const error = await failure(gateway.scope.run('f:fail', { message: 'boom' }, { caller }));
      expect(error.code).toBe('execution_failed');
    }
    const after = await ids(query);
    expect(after.indexOf('f:fail')).toBeGreaterThan(after.indexOf('f:echo'));
    expect((await ids('fail'))[0]).toBe('f:fail');
    // A caller's mistake (bad arguments) is not the tool's failure.
    const invalid = await failure(gateway.scope.run('f:add', { a: 'x' }, { caller }));
    expect(invalid.code).toBe('validation_input');
    expect((await ids('add sum numbers'))[0]).toBe('f:add');
  });

  it('learns a query from a search followed by a successful run in the same session', async () => {
    expect(await ids('parrot')).toEqual([]);
    expect(await ids('parrot echo text', 'session-1')).toContain('f:echo');
    await gateway.scope.run('f:echo', { text: 'hi' }, { caller });
    expect((await ids('parrot'))[0]).toBe('f:echo');
    // Another session's runs teach nothing from this session's searches.
    await ids('macaw echo text', 'session-1');
    await gateway.scope.run('f:echo', { text: 'hi' }, { caller: { identity: 'agent', sessionId: 'other' } });
    expect(await ids('macaw')).toEqual([]);
  });
});

describe('a broken embedder', () => {
  it('refuses a missing ONNX model folder at startup with config_invalid', async () => {
    const error = await failure(
      gatewayFrom({
        search: { strategy: 'hybrid', embedder: { provider: 'onnx', path: '/nonexistent/model' } },
      }),
    );
    expect(error.code).toBe('config_invalid');
    expect(error.message).toContain('/nonexistent/model');
  });

  it('leaves the gateway serving with BM25F when the embeddings endpoint is down', async () => {
    const gateway = await gatewayFrom({
      search: {
        strategy: 'hybrid',
        embedder: { provider: 'openai', url: 'http://127.0.0.1:9/v1', model: 'm' },
      },
    });
    try {
      await waitFor(
        'the embedding failure',
        () => gateway.readiness().search.vectors?.lastError !== undefined,
      );
      expect(gateway.readiness().search.vectors?.lastError).toContain('embeddings endpoint');
      const page = await gateway.scope.search({ query: 'current time', limit: 3 });
      expect(page.strategy).toBe('bm25');
      expect(page.tools[0]?.id).toBe('time:now');
    } finally {
      await gateway.close();
    }
  });
});
