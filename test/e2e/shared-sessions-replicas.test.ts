import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type RedisServerHandle,
  redisServerBin,
  startRedisServer,
  unlessRedis,
} from '../support/redis-server.js';
import { type RunningGateway, startHttpGateway } from './gateway-process.js';

/*
 * Two `aperture serve` processes on one real Redis (`state.driver: redis`), and the official SDK
 * client whose requests alternate between them with no affinity: a session opened on A serves
 * 100 calls on both, then A dies (SIGKILL) mid-session and the same client goes on on B — no
 * call lost, no second initialize. DELETE on B ends the session.
 */

const KEY = 'replica-key-0123456789abcdef';

describe.skipIf(!redisServerBin)(`a session across two aperture serve processes${unlessRedis()}`, () => {
  let redis: RedisServerHandle;
  let dir: string;
  let a: RunningGateway;
  let b: RunningGateway;

  beforeAll(async () => {
    redis = (await startRedisServer()) as RedisServerHandle;
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-replicas-'));
    const config = [
      'server: { name: aperture-replicas }',
      'tools: { builtin: true }',
      'exposure: { mode: flat }',
      `auth: { apiKeys: [{ name: agent, key: "${KEY}" }] }`,
      `state: { driver: redis, redis: { url: "${redis.url}", prefix: "e2e:" } }`,
      'observability: { logLevel: warn }',
    ].join('\n');
    await writeFile(path.join(dir, 'aperture.yaml'), `${config}\n`);
    [a, b] = await Promise.all([
      startHttpGateway(['--config', 'aperture.yaml'], dir),
      startHttpGateway(['--config', 'aperture.yaml'], dir),
    ]);
  }, 60_000);

  afterAll(async () => {
    await Promise.allSettled([a?.[Symbol.asyncDispose](), b?.[Symbol.asyncDispose]()]);
    await redis?.[Symbol.asyncDispose]();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('goes on on B after A is killed mid-session, with no re-initialize; DELETE on B ends it', async () => {
    let targets = [a.url, b.url];
    let n = 0;
    const landed = new Map<string, number>();
    let initializes = 0;
    // The balancer: request n goes to targets[n % targets.length], the path kept.
    const balance: typeof fetch = (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const target = new URL(targets[n++ % targets.length] as string);
      url.host = target.host;
      landed.set(target.host, (landed.get(target.host) ?? 0) + 1);
      if (typeof init?.body === 'string' && init.body.includes('"method":"initialize"')) initializes++;
      return fetch(url, init);
    };
    const transport = new StreamableHTTPClientTransport(new URL(`${a.url}/mcp`), {
      fetch: balance,
      requestInit: { headers: { authorization: `Bearer ${KEY}` } },
    });
    const client = new Client({ name: 'replica-e2e', version: '1.0.0' });
    await client.connect(transport);
    const sessionId = transport.sessionId as string;
    const { tools } = await client.listTools();
    const convert = tools.find((t) => t.name.endsWith('convert'))?.name;
    expect(convert, tools.map((t) => t.name).join(', ')).toBeDefined();
    const call = async (i: number) => {
      const result = await client.callTool({
        name: convert as string,
        arguments: { datetime: '2026-01-01T12:00:00Z', timezone: 'Asia/Tokyo' },
      });
      expect(result.isError, `call ${i}: ${JSON.stringify(result)}`).toBeFalsy();
    };
    for (let i = 0; i < 100; i++) await call(i);
    expect(landed.get(new URL(a.url).host)).toBeGreaterThanOrEqual(50);
    expect(landed.get(new URL(b.url).host)).toBeGreaterThanOrEqual(50);

    // A dies without a word; the balancer sends everything to B from now on.
    a.child.kill('SIGKILL');
    await new Promise((resolve) => a.child.once('exit', resolve));
    targets = [b.url];
    for (let i = 100; i < 120; i++) await call(i);
    expect(transport.sessionId).toBe(sessionId);
    expect(initializes).toBe(1);

    const deleted = await fetch(`${b.url}/mcp`, {
      method: 'DELETE',
      headers: { 'mcp-session-id': sessionId, authorization: `Bearer ${KEY}` },
    });
    expect(deleted.status).toBe(200);
    const after = await fetch(`${b.url}/mcp`, {
      method: 'POST',
      headers: {
        'mcp-session-id': sessionId,
        authorization: `Bearer ${KEY}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(after.status).toBe(404);
    await client.close().catch(() => {});
  }, 120_000);
});
