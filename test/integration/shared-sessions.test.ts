import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/app/gateway.js';
import { referenceServerBin } from '../support/fixture-servers.js';
import { gatewayFrom } from '../support/in-process-gateway.js';
import {
  type RedisServerHandle,
  redisServerBin,
  startRedisServer,
  unlessRedis,
} from '../support/redis-server.js';

/*
 * 2025-era MCP sessions shared by two gateways on one real Redis (`state.driver: redis`), driven
 * by the official SDK client whose requests alternate between the two (no affinity): the session
 * opened on one is rebuilt on the other, with its owner, its endpoint, its client's capabilities
 * (a downstream server's elicitation reaches the client through a rebuilt session and its answer
 * finds the replica that asked), its stream events (resumed on the other replica) and its end.
 */

const EVERYTHING = referenceServerBin('server-everything');
const ALICE = 'alice-key-0123456789abcdef';
const BOB = 'bob-key-0123456789abcdefgh';

interface Replica {
  gateway: Gateway;
  url: string;
}

const textOf = (result: unknown): string =>
  ((result as { content?: { type: string; text?: string }[] }).content ?? [])
    .map((c) => c.text ?? '')
    .join('\n');

/** A fetch that sends request n to `urls[n % urls.length]` (the path and query kept). */
function alternating(urls: string[]): { fetch: typeof fetch; hosts: string[] } {
  let n = 0;
  const hosts: string[] = [];
  const fetcher: typeof fetch = (input, init) => {
    const original = new URL(input instanceof Request ? input.url : String(input));
    const target = new URL(urls[n++ % urls.length] as string);
    original.host = target.host;
    hosts.push(target.host);
    return fetch(original, init);
  };
  return { fetch: fetcher, hosts };
}

async function connect(
  urls: string[],
  options: { key?: string; path?: string; elicit?: (message: string) => Record<string, unknown> } = {},
): Promise<{
  client: Client;
  transport: StreamableHTTPClientTransport;
  hosts: string[];
  initializes: () => number;
}> {
  const { fetch: fetcher, hosts } = alternating(urls);
  let initializes = 0;
  const counted: typeof fetch = async (input, init) => {
    if (typeof init?.body === 'string' && init.body.includes('"method":"initialize"')) initializes++;
    return fetcher(input, init);
  };
  const client = new Client(
    { name: 'replica-hopper', version: '1.0.0' },
    { capabilities: options.elicit ? { elicitation: {} } : {} },
  );
  const elicit = options.elicit;
  if (elicit)
    client.setRequestHandler(ElicitRequestSchema, async (request) => ({
      action: 'accept',
      content: elicit(request.params.message) as Record<string, string>,
    }));
  const transport = new StreamableHTTPClientTransport(new URL(`${urls[0]}${options.path ?? '/mcp'}`), {
    fetch: counted,
    requestInit: { headers: { authorization: `Bearer ${options.key ?? ALICE}` } },
  });
  await client.connect(transport);
  return { client, transport, hosts, initializes: () => initializes };
}

describe.skipIf(!redisServerBin)(`MCP sessions shared by two gateways on one Redis${unlessRedis()}`, () => {
  let redis: RedisServerHandle;
  let dir: string;
  const replicas: Replica[] = [];
  let urls: string[];

  beforeAll(async () => {
    redis = (await startRedisServer()) as RedisServerHandle;
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-shared-sessions-'));
    for (const name of ['a', 'b']) {
      const gateway = await gatewayFrom({
        server: { name: 'aperture-shared' },
        tools: { builtin: true },
        servers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } },
        exposure: { mode: 'flat' },
        toolsets: [{ name: 'time', namespaces: ['time'] }],
        auth: {
          apiKeys: [
            { name: 'alice', key: ALICE },
            { name: 'bob', key: BOB },
          ],
        },
        state: { driver: 'redis', dir: path.join(dir, name), redis: { url: redis.url, prefix: 'it:' } },
        execution: { timeoutMs: 30_000 },
      });
      await gateway.whenReady();
      const { url } = await gateway.serveHttp('127.0.0.1', 0);
      replicas.push({ gateway, url });
    }
    urls = replicas.map((r) => r.url);
  }, 60_000);

  afterAll(async () => {
    await Promise.allSettled(replicas.map((r) => r.gateway.close()));
    await redis?.[Symbol.asyncDispose]();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('serves 100 calls alternating between the replicas on one session, never initializing again', async () => {
    const { client, hosts, initializes } = await connect(urls);
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('everything__echo');
    // The event streams kept in Redis for requests (not the standalone GET stream, which the
    // client may open at any time): a call answered as JSON keeps none.
    const store = new Redis(redis.url);
    const requestStreams = async () =>
      (await store.keys('it:mcp:events:*')).filter((key) => !key.endsWith('/_GET_stream')).length;
    const before = await requestStreams();
    for (let i = 0; i < 100; i++) {
      const result = await client.callTool({ name: 'everything__echo', arguments: { message: `call ${i}` } });
      expect(textOf(result)).toContain(`call ${i}`);
    }
    expect(await requestStreams()).toBe(before);
    store.disconnect();
    expect(initializes()).toBe(1);
    const hostsUsed = new Set(hosts);
    expect(hostsUsed.size).toBe(2);
    await client.close();
  }, 120_000);

  it('ends a session deleted on one replica on the other too (404 after)', async () => {
    const { client, transport } = await connect(urls);
    await client.callTool({ name: 'everything__echo', arguments: { message: 'before' } });
    const id = transport.sessionId as string;
    // Both replicas hold the session now; DELETE it on B.
    const deleted = await fetch(`${urls[1]}/mcp`, {
      method: 'DELETE',
      headers: { 'mcp-session-id': id, authorization: `Bearer ${ALICE}` },
    });
    expect(deleted.status).toBe(200);
    for (const url of urls) {
      const after = await fetch(`${url}/mcp`, {
        method: 'POST',
        headers: {
          'mcp-session-id': id,
          authorization: `Bearer ${ALICE}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
      });
      expect(after.status).toBe(404);
    }
    await client.close().catch(() => {});
  }, 60_000);

  it('opens a standalone stream on the other replica; refuses another caller there (403), and another endpoint (404)', async () => {
    // Opened on A only: B rebuilds it for the first request it sees.
    const { client, transport } = await connect([urls[0] as string]);
    const id = transport.sessionId as string;
    const request = (url: string, key: string) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'mcp-session-id': id,
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }),
      });
    // A standalone GET stream opens on B, which rebuilds the session for it.
    const controller = new AbortController();
    const stream = await fetch(`${urls[1]}/mcp`, {
      method: 'GET',
      headers: { 'mcp-session-id': id, authorization: `Bearer ${ALICE}`, accept: 'text/event-stream' },
      signal: controller.signal,
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    controller.abort();
    const bob = await request(`${urls[1]}/mcp`, BOB);
    expect(bob.status).toBe(403);
    expect(await bob.text()).toMatch(/another identity/);
    expect((await request(`${urls[1]}/mcp/time`, ALICE)).status).toBe(404);
    const alice = await request(`${urls[1]}/mcp`, ALICE);
    expect(alice.status).toBe(200);
    expect(await alice.text()).toContain('everything__echo');
    await client.close();
  }, 60_000);

  it("relays a downstream server's elicitation to the client through rebuilt sessions, the answer reaching the replica that asked", async () => {
    const { client } = await connect(urls, {
      elicit: (message) => {
        expect(message).toMatch(/provide inputs/);
        return { name: 'Ada Lovelace', check: true };
      },
    });
    // Several times, so the call and the client's answer land on either replica.
    for (let i = 0; i < 4; i++) {
      const result = await client.callTool({
        name: 'everything__trigger-elicitation-request',
        arguments: {},
      });
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(textOf(result)).toContain('- Name: Ada Lovelace');
    }
    await client.close();
  }, 90_000);

  it('resumes a stream on the other replica with Last-Event-ID', async () => {
    const { client, transport } = await connect([urls[0] as string]);
    const id = transport.sessionId as string;
    const headers = {
      'mcp-session-id': id,
      authorization: `Bearer ${ALICE}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    };
    // A call on A whose answer is an event stream with event ids (the client's version is
    // ≥ 2025-11-25): progress comes before the result, so it is streamed.
    const call = await fetch(`${urls[0]}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 77,
        method: 'tools/call',
        params: {
          name: 'everything__trigger-long-running-operation',
          arguments: { duration: 0.2, steps: 2 },
          _meta: { progressToken: 'resumable' },
        },
      }),
    });
    const text = await call.text();
    const ids = [...text.matchAll(/^id: (.+)$/gm)].map((m) => m[1] as string);
    expect(ids.length, text).toBeGreaterThanOrEqual(3);
    expect(text).toContain('"progressToken":"resumable"');
    expect(text).toContain('"id":77');
    // The client "lost" the stream after the priming event: it resumes on B.
    const resumed = await fetch(`${urls[1]}/mcp`, {
      method: 'GET',
      headers: { ...headers, 'last-event-id': ids[0] as string },
    });
    expect(resumed.status).toBe(200);
    const replay = await resumed.text();
    // Everything after the priming event, the result included, again — from B.
    expect(replay).toContain(`id: ${ids[1]}`);
    expect(replay).toContain(`id: ${ids.at(-1)}`);
    expect(replay).toContain('"id":77');
    // Another session cannot resume this one's stream.
    const other = await connect([urls[1] as string]);
    const foreign = await fetch(`${urls[1]}/mcp`, {
      method: 'GET',
      headers: {
        ...headers,
        'mcp-session-id': other.transport.sessionId as string,
        'last-event-id': ids[0] as string,
      },
    });
    expect(foreign.status).toBe(400);
    await foreign.text();
    await other.client.close();
    await client.close();
  }, 60_000);
});
