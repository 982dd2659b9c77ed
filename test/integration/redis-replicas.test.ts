import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway, HttpListener } from '../../src/app/gateway.js';
import { failure } from '../support/expect-failure.js';
import { faultyServer, waitFor } from '../support/fixture-servers.js';
import { gatewayFrom } from '../support/in-process-gateway.js';
import {
  type RedisServerHandle,
  redisServerBin,
  startRedisServer,
  unlessRedis,
} from '../support/redis-server.js';

/**
 * Two gateways on one real Redis (`state.driver: redis`), each with its own downstream stdio
 * server, as two replicas behind a load balancer: what one learns, caches, counts or hears, the
 * other knows; Redis stopped, each serves what it can and says why it is not ready; Redis back,
 * both are ready again.
 */
describe.skipIf(!redisServerBin)(`two gateways sharing state in Redis${unlessRedis()}`, () => {
  let redis: RedisServerHandle;
  let a: Gateway;
  let b: Gateway;
  let listenerA: HttpListener;
  let listenerB: HttpListener;
  const caller = { identity: 'agent', sessionId: 'session-a' };

  const config = (url: string) => ({
    state: { driver: 'redis', redis: { url, prefix: 'replicas:', commandTimeoutMs: 500 } },
    servers: { f: faultyServer() },
    cache: { ttlMs: 60_000 },
    rateLimits: [{ tool: 'plantuml:decode', perMinute: 5 }],
    exposure: 'flat',
  });

  beforeAll(async () => {
    const started = await startRedisServer();
    if (!started) throw new Error('redis-server did not start');
    redis = started;
    [a, b] = await Promise.all([gatewayFrom(config(redis.url)), gatewayFrom(config(redis.url))]);
    for (const gateway of [a, b]) {
      await waitFor(
        'the fixture server',
        () => gateway.readiness().ready && gateway.catalog.get('f:echo') !== undefined,
        15_000,
      );
    }
    [listenerA, listenerB] = await Promise.all([a.serveHttp('127.0.0.1', 0), b.serveHttp('127.0.0.1', 0)]);
  }, 60_000);

  afterAll(async () => {
    await Promise.allSettled([a?.close(), b?.close()]);
    await redis?.[Symbol.asyncDispose]();
  });

  it('a query learned on one ranks the tool first on the other', async () => {
    const ids = async (gateway: Gateway, query: string, session?: string) =>
      (await gateway.scope.search({ query, limit: 5, ...(session ? { session } : {}) })).tools.map(
        (t) => t.id,
      );
    expect(await ids(b, 'parrot')).toEqual([]);
    expect(await ids(a, 'parrot echo text', 'session-a')).toContain('f:echo');
    await a.scope.run('f:echo', { text: 'hi' }, { caller });
    expect((await ids(a, 'parrot'))[0]).toBe('f:echo');
    // Learned queries are written a second after learning at most, then fanned out.
    await waitFor('B to learn the query', async () => (await ids(b, 'parrot'))[0] === 'f:echo', 5000);
  });

  it('a result computed on one is a cache hit on the other', async () => {
    const args = { source: 'Alice -> Bob: shared cache' };
    const before = b.policies.cache!.stats().hits;
    const stored = a.policies.cache!.stats().stores;
    const first = await a.scope.run('plantuml:encode', args, { caller });
    // The result is stored in the background, after the caller has it.
    await waitFor('the result to be stored', () => a.policies.cache!.stats().stores > stored, 5000);
    const second = await b.scope.run('plantuml:encode', args, { caller });
    expect(second).toEqual(first);
    expect(b.policies.cache!.stats().hits).toBe(before + 1);
  });

  it('a limit of 5 a minute holds for both together: the 6th call is rate_limited', async () => {
    const encoded = await a.scope.run('plantuml:encode', { source: 'A -> B' }, { caller });
    const text = String(
      (encoded as { structuredContent?: { encoded?: string } }).structuredContent?.encoded ?? '',
    );
    const decode = (gateway: Gateway) =>
      gateway.scope.run(
        'plantuml:decode',
        { encoded: text || 'SyfFKj2rKt3CoKnELR1Io4ZDoSa70000' },
        { caller },
      );
    for (let i = 0; i < 5; i++)
      await decode(i % 2 === 0 ? a : b).catch((error: { code?: string }) => {
        // A tool error is fine here; only the limit is under test.
        if (error.code === 'rate_limited') throw error;
      });
    const sixth = await failure(decode(b));
    expect(sixth.code).toBe('rate_limited');
  });

  it('an A2A task run on one is found by tasks/get on the other', async () => {
    const rpc = async (base: string, method: string, params: unknown) => {
      const response = await fetch(`${base}/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      return (await response.json()) as { result?: Record<string, unknown>; error?: { code: number } };
    };
    const sent = await rpc(listenerA.url, 'message/send', {
      message: {
        kind: 'message',
        messageId: randomUUID(),
        role: 'user',
        parts: [{ kind: 'data', data: { tool_id: 'f:echo', args: { text: 'across replicas' } } }],
      },
    });
    const task = sent.result as { id: string; status: { state: string } };
    expect(task.status.state).toBe('completed');
    const got = await rpc(listenerB.url, 'tasks/get', { id: task.id });
    expect(got.result).toMatchObject({ id: task.id, status: { state: 'completed' } });
    expect((await rpc(listenerB.url, 'tasks/get', { id: 'missing' })).error?.code).toBe(-32001);
  });

  it('a downstream tool list change heard by one reaches tools/list_changed clients of the other within 2 s', async () => {
    const client = new Client({ name: 'replica-b-client', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${listenerB.url}/mcp`)));
    try {
      let notified = 0;
      client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
        notified++;
      });
      await a.scope.run('f:add_tool', { name: 'fresh_tool' }, { caller });
      await waitFor('tools/list_changed on B', () => notified > 0, 2000);
    } finally {
      await client.close();
    }
  });

  it('Redis stopped: /readyz is 503 with the reason, local tools still run; restarted: ready again within 10 s', async () => {
    await redis.stop();
    await waitFor('A to notice', () => a.readiness().state?.state === 'down', 10_000);
    const response = await fetch(`${listenerA.url}/readyz`);
    expect(response.status).toBe(503);
    const body = (await response.json()) as {
      ready: boolean;
      state?: { driver: string; state: string; reason?: string };
    };
    expect(body.ready).toBe(false);
    expect(body.state).toMatchObject({ driver: 'redis', state: 'down' });
    expect(body.state?.reason).toBeTruthy();
    // Local tools and downstream tools are served from memory: cache misses, local buckets.
    const encoded = await a.scope.run('plantuml:encode', { source: 'X -> Y: during the outage' }, { caller });
    expect(encoded).toBeDefined();
    expect(await b.scope.run('f:echo', { text: 'still here' }, { caller })).toBeDefined();
    const search = await b.scope.search({ query: 'echo text', limit: 3 });
    expect(search.tools.length).toBeGreaterThan(0);

    await redis.start();
    await waitFor('both to be ready again', () => a.readiness().ready && b.readiness().ready, 10_000);
    expect((await fetch(`${listenerB.url}/readyz`)).status).toBe(200);
    // Full service: state written after the restart reaches the other again.
    const stored = a.policies.cache!.stats().stores;
    await a.scope.run('plantuml:encode', { source: 'after the restart' }, { caller });
    await waitFor('the result to be stored', () => a.policies.cache!.stats().stores > stored, 5000);
    const hits = b.policies.cache!.stats().hits;
    await b.scope.run('plantuml:encode', { source: 'after the restart' }, { caller });
    expect(b.policies.cache!.stats().hits).toBe(hits + 1);
  }, 40_000);
});
