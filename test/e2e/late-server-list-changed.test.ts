import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/fixture-servers.js';
import { freePort } from '../support/free-port.js';
import { clusterMissing, type ReplicaCluster, startReplicaCluster } from '../support/replica-cluster.js';
import { type RunningGateway, startHttpGateway } from './gateway-process.js';

/*
 * Health reaching clients, end to end: a downstream server that starts 5 s after the client's
 * session opened. The client (official SDK, flat exposure) receives `tools/list_changed` and then
 * sees the server's tools — on one `aperture serve`, and on the second of two replicas on Redis
 * behind nginx (skipped by name without redis-server or nginx).
 */

const FIXTURE = new URL('../fixtures/federation/session-dropping-server.mjs', import.meta.url).pathname;
const skipCluster = clusterMissing();

async function startFixture(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [FIXTURE], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      if (line.startsWith('listening ')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`fixture exited with ${code}`)));
  });
  return child;
}

/** A client on `url` counting `tools/list_changed`. */
async function listening(url: string, fetchImpl?: typeof fetch) {
  let changes = 0;
  const client = new Client({ name: 'late-server-e2e', version: '1.0.0' });
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    changes++;
  });
  const transport = new StreamableHTTPClientTransport(new URL(url), fetchImpl ? { fetch: fetchImpl } : {});
  await client.connect(transport);
  return { client, transport, changes: () => changes };
}

const config = (port: number) => ({
  server: { name: 'aperture-late' },
  tools: { builtin: true },
  exposure: 'flat',
  servers: { late: { url: `http://127.0.0.1:${port}/mcp` } },
  observability: { logLevel: 'error' },
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGTERM');
});

describe('a server that starts after the client’s session opened', () => {
  let dir: string;
  let gateway: RunningGateway | undefined;
  afterAll(async () => {
    await gateway?.[Symbol.asyncDispose]();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('reaches the open session: tools/list_changed, then its tools', async () => {
    const port = await freePort();
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-late-'));
    await writeFile(path.join(dir, 'aperture.json'), JSON.stringify(config(port)));
    gateway = await startHttpGateway(['--config', 'aperture.json'], dir);
    const session = await listening(`${gateway.url}/mcp`);
    try {
      const before = (await session.client.listTools()).tools.map((t) => t.name);
      expect(before.some((name) => name.startsWith('late__'))).toBe(false);
      const heardBefore = session.changes();
      await sleep(5000);
      children.push(await startFixture(port));
      await waitFor('tools/list_changed', () => session.changes() > heardBefore, 20_000);
      const after = (await session.client.listTools()).tools.map((t) => t.name);
      expect(after).toEqual(expect.arrayContaining(['late__read', 'late__write']));
      // Once per change: the server's arrival is one notification, not one per listing step.
      await sleep(1500);
      expect(session.changes() - heardBefore).toBe(1);
      // /readyz shows the server's last state changes with their times: down until it started.
      const ready = (await (await fetch(`${gateway.url}/readyz`)).json()) as {
        sources: { id: string; transitions?: { state: string; at: string; reason?: string }[] }[];
      };
      const transitions = ready.sources.find((s) => s.id === 'mcp:late')?.transitions ?? [];
      expect(transitions.map((t) => t.state)).toEqual(['connecting', 'failed', 'connected']);
      expect(transitions[1]?.reason).toBeTruthy();
      expect(
        Date.parse(transitions[2]?.at as string) - Date.parse(transitions[1]?.at as string),
      ).toBeGreaterThan(4000);
    } finally {
      await session.client.close().catch(() => {});
    }
  }, 60_000);
});

describe(`a server that starts late, on two replicas behind nginx${skipCluster}`, () => {
  let cluster: ReplicaCluster | null = null;
  afterAll(async () => {
    await cluster?.[Symbol.asyncDispose]();
  }, 60_000);

  it.skipIf(skipCluster)(
    'reaches an open session held by the second replica',
    async () => {
      const port = await freePort();
      const c = (await startReplicaCluster({ replicas: 2, config: config(port) })) as ReplicaCluster;
      cluster = c;
      // The session is opened on replica 1 and its requests stay there (its GET stream too).
      const second = new URL(c.replicas[1]?.url as string);
      const toSecond: typeof fetch = (input, init) => {
        const url = new URL(input instanceof Request ? input.url : String(input));
        url.host = second.host;
        return fetch(url, init);
      };
      const session = await listening(`${c.url}/mcp`, toSecond);
      try {
        const heardBefore = session.changes();
        await sleep(5000);
        children.push(await startFixture(port));
        await waitFor(
          'tools/list_changed on the second replica',
          () => session.changes() > heardBefore,
          20_000,
        );
        const after = (await session.client.listTools()).tools.map((t) => t.name);
        expect(after).toEqual(expect.arrayContaining(['late__read', 'late__write']));
      } finally {
        await session.client.close().catch(() => {});
      }
    },
    90_000,
  );
});
