import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceServerBin, waitFor } from '../support/fixture-servers.js';
import { clusterMissing, type ReplicaCluster, startReplicaCluster } from '../support/replica-cluster.js';

/*
 * A session restored on another replica keeps what the client set up, end to end: two replicas
 * on Redis behind nginx, each with its own `everything` server over stdio, and the official SDK
 * client (a 2025-era session, flat exposure). The client subscribes to a resource and sets a log
 * level; the replica it was using is SIGKILLed; on the other one the same session still gets the
 * resource's updates (the subscription asked of that replica's server), and the shared record it
 * was rebuilt from holds the level it set. Skipped by name without redis-server or nginx.
 */

const EVERYTHING = referenceServerBin('server-everything');
const skip = clusterMissing();

describe(`a session restored on another replica keeps its subscriptions and log level${skip}`, () => {
  let cluster: ReplicaCluster | null = null;

  beforeAll(async () => {
    if (skip) return;
    cluster = await startReplicaCluster({
      replicas: 2,
      config: {
        server: { name: 'aperture-restore' },
        tools: { builtin: false },
        exposure: 'flat',
        servers: { ev: { command: process.execPath, args: [EVERYTHING, 'stdio'] } },
        observability: { logLevel: 'warn' },
      },
    });
  }, 120_000);

  afterAll(async () => {
    await cluster?.[Symbol.asyncDispose]();
  }, 60_000);

  it.skipIf(skip)(
    'goes on after its replica is killed: updates of its subscription, its log level kept',
    async () => {
      const c = cluster as ReplicaCluster;
      const updated: string[] = [];
      const client = new Client(
        { name: 'restore-e2e', version: '1.0.0' },
        { versionNegotiation: { mode: 'legacy' } },
      );
      client.setNotificationHandler(
        'notifications/resources/updated',
        (n) => void updated.push(n.params.uri),
      );
      // Everything goes to replica 0 until it is killed, then to replica 1 (the balancer's address).
      let target = c.replicas[0]?.url as string;
      const transport = new StreamableHTTPClientTransport(new URL(`${c.url}/mcp`), {
        fetch: (input, init) => {
          const url = new URL(input instanceof Request ? input.url : String(input));
          url.host = new URL(target).host;
          return fetch(url, init);
        },
      });
      await client.connect(transport);
      const sessionId = transport.sessionId;
      try {
        await waitFor(
          'the server’s tools',
          async () =>
            (await client.listTools()).tools.some((t) => t.name.endsWith('toggle-subscriber-updates')),
          20_000,
        );
        const toggle = (await client.listTools()).tools.find((t) =>
          t.name.endsWith('toggle-subscriber-updates'),
        )?.name as string;
        const { resources } = await client.listResources();
        const uri = resources[0]?.uri as string;
        await client.subscribeResource({ uri });
        await client.setLoggingLevel('debug');

        await c.kill(0);
        target = c.replicas[1]?.url as string;
        // The same session, on replica 1: rebuilt from the shared record, no new initialize.
        const result = await client.callTool({ name: toggle, arguments: {} });
        expect(result.isError, JSON.stringify(result)).toBeFalsy();
        await waitFor(
          'an update of the subscribed resource on replica 1',
          () => updated.includes(uri),
          20_000,
        );
        expect(transport.sessionId).toBe(sessionId);
        // What replica 1 rebuilt the session from: the level and the subscription the client set.
        const redis = new Redis(c.redis.url);
        try {
          const [key] = await redis.keys(`*mcp:session:${sessionId}`);
          const record = JSON.parse((await redis.get(key as string)) as string) as {
            logLevel?: string;
            subscriptions?: string[];
          };
          expect(record.logLevel).toBe('debug');
          expect(record.subscriptions).toContain(uri);
        } finally {
          redis.disconnect();
        }
      } finally {
        await client.close().catch(() => {});
      }
    },
    120_000,
  );
});
