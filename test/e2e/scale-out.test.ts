/**
 * Scale-out, end to end with real parts only: a real Redis, three `aperture serve` processes on
 * `state.driver: redis`, and a real nginx in front of them balancing every request round-robin
 * with no affinity (the proxy rules compose.yaml deploys). Official SDK clients talk to the
 * balancer. Without redis-server or nginx every test here is reported skipped, by name.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faultyServer, waitFor } from '../support/fixture-servers.js';
import { clusterMissing, type ReplicaCluster, startReplicaCluster } from '../support/replica-cluster.js';

const TOOLS = new URL('../fixtures/cluster/cluster-tools.ts', import.meta.url).pathname;
const skip = clusterMissing();

interface Connected {
  client: Client;
  transport: StreamableHTTPClientTransport;
  close(): Promise<void>;
}

/**
 * An SDK client on `url` (`legacy`: a 2025-era session; `auto`: 2026-07-28, stateless).
 * `onAnswer` hears the method of each HTTP request and the `X-Upstream-Addr` of its answer.
 */
async function connect(
  url: string,
  mode: 'legacy' | 'auto' = 'legacy',
  onAnswer?: (method: string, upstream: string | null) => void,
): Promise<Connected> {
  const client = new Client(
    { name: `scale-out-${mode}`, version: '1.0.0' },
    { versionNegotiation: { mode } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      onAnswer?.(init?.method ?? 'GET', response.headers.get('x-upstream-addr'));
      return response;
    },
  });
  await client.connect(transport);
  return { client, transport, close: () => client.close().catch(() => {}) };
}

/** A tool result's structuredContent (or its error), loosely typed for assertions. */
function content(result: unknown): Record<string, any> {
  return (result as { structuredContent: Record<string, any> }).structuredContent;
}

async function run(client: Client, tool: string, args: Record<string, unknown> = {}) {
  return client.callTool({ name: 'run_tool', arguments: { tool_id: tool, args } });
}

describe(`scale-out: three replicas on Redis behind nginx${skip}`, () => {
  let cluster: ReplicaCluster | null = null;
  /** pid → replica index, to read where a call ran from its answer. */
  const replicaOf = (pid: number) => cluster?.replicas.findIndex((r) => r.child.pid === pid) ?? -1;

  beforeAll(async () => {
    if (skip) return;
    cluster = await startReplicaCluster({
      replicas: 3,
      config: {
        server: { name: 'aperture-cluster' },
        tools: { builtin: true, modules: [TOOLS] },
        // Metatools only: the list is the same on every replica whatever the downstream lists.
        exposure: 'metatools',
        servers: { faulty: faultyServer() },
        cache: { ttlMs: 600_000 },
        rateLimits: [{ tool: 'cluster:limited', perMinute: 5 }],
        observability: { logLevel: 'warn' },
      },
    });
  }, 120_000);

  afterAll(async () => {
    await cluster?.[Symbol.asyncDispose]();
  }, 60_000);

  /** The replica that answered the last POST of `sessionId`, from the balancer's log. */
  const lastAnswer = (sessionId: string) =>
    cluster
      ?.requests()
      .filter((r) => r.method === 'POST' && r.sessionId === sessionId)
      .at(-1)?.replica ?? -1;

  it.skipIf(skip)(
    '1. a 2025-era session runs 100 calls on all three replicas, then goes on without re-initializing when one is SIGKILLed',
    async () => {
      const c = cluster as ReplicaCluster;
      const session = await connect(`${c.url}/mcp`);
      try {
        expect(session.client.getNegotiatedProtocolVersion()).not.toBe('2026-07-28');
        const sessionId = session.transport.sessionId;
        expect(sessionId).toBeTruthy();
        const initializes = () => c.requests().filter((r) => r.method === 'POST' && !r.sessionId).length;
        const initialized = initializes();

        const ran = [0, 0, 0];
        for (let n = 0; n < 100; n++) {
          const result = await run(session.client, 'cluster:whereami', { n });
          expect(result.isError, JSON.stringify(result)).toBeFalsy();
          const where = replicaOf(content(result).pid);
          expect(where).toBeGreaterThanOrEqual(0);
          ran[where] = (ran[where] ?? 0) + 1;
        }
        // Every replica ran calls of this one session, and the balancer says the same.
        expect(
          ran.every((count) => count > 0),
          `calls per replica ${ran}`,
        ).toBe(true);
        const logged = c.perReplica((r) => r.sessionId === sessionId && r.method === 'POST');
        expect(
          logged.every((count) => count > 0),
          `logged per replica ${logged}`,
        ).toBe(true);

        // SIGKILL replica 2 while 100 more calls are under way: none may fail.
        const results: unknown[] = [];
        const calls = (async () => {
          for (let n = 0; n < 100; n++) results.push(await run(session.client, 'cluster:whereami', { n }));
        })();
        await waitFor('a few calls', () => results.length >= 20, 30_000);
        const killed = c.replicas[2]?.child.pid;
        await c.kill(2);
        await calls;
        expect(results).toHaveLength(100);
        const failed = results.filter((r) => (r as { isError?: boolean }).isError);
        expect(failed, JSON.stringify(failed[0])).toEqual([]);
        const after = results.slice(30).map((r) => content(r).pid);
        expect(after).not.toContain(killed);
        expect(new Set(after).size).toBe(2);
        // The same session throughout: no new initialize reached any replica.
        expect(session.transport.sessionId).toBe(sessionId);
        expect(initializes()).toBe(initialized);
      } finally {
        await session.close();
        await c.restart(2);
      }
    },
    180_000,
  );

  it.skipIf(skip)('2. a rate limit of 5 a minute holds for the three replicas together', async () => {
    const c = cluster as ReplicaCluster;
    const session = await connect(`${c.url}/mcp`);
    try {
      const sessionId = session.transport.sessionId as string;
      const outcomes: { ok: boolean; code?: string; replica: number }[] = [];
      for (let n = 0; n < 6; n++) {
        const result = await run(session.client, 'cluster:limited');
        outcomes.push({
          ok: !result.isError,
          code: content(result)?.error?.code,
          replica: lastAnswer(sessionId),
        });
      }
      expect(
        outcomes.slice(0, 5).every((o) => o.ok),
        JSON.stringify(outcomes),
      ).toBe(true);
      expect(outcomes[5]).toMatchObject({ ok: false, code: 'rate_limited' });
      // One limit, not one per replica: the replica that refused the sixth call had itself answered
      // fewer than five of the first five, so a per-replica bucket would have let the call through. (The
      // spread need not be even: nginx may still hold the replica restarted above as failed.)
      const refusedBy = (outcomes[5] as { replica: number }).replica;
      const earlierOnThatReplica = outcomes.slice(0, 5).filter((o) => o.replica === refusedBy).length;
      expect(earlierOnThatReplica, JSON.stringify(outcomes)).toBeLessThan(5);
      expect(new Set(outcomes.map((o) => o.replica)).size, JSON.stringify(outcomes)).toBeGreaterThanOrEqual(
        2,
      );
    } finally {
      await session.close();
    }
  });

  it.skipIf(skip)('3. a cacheable result computed on one replica is a cache hit on another', async () => {
    const c = cluster as ReplicaCluster;
    const session = await connect(`${c.url}/mcp`);
    try {
      const sessionId = session.transport.sessionId as string;
      const key = `k-${Date.now()}`;
      const first = await run(session.client, 'cluster:lookup', { key });
      expect(first.isError, JSON.stringify(first)).toBeFalsy();
      const computedBy = replicaOf(content(first).pid);
      expect(computedBy).toBeGreaterThanOrEqual(0);
      const answeredBy: number[] = [];
      for (let n = 0; n < 3; n++) {
        const again = await run(session.client, 'cluster:lookup', { key });
        // The same answer, pid included: computed once, on the first replica.
        expect(content(again)).toEqual(content(first));
        answeredBy.push(lastAnswer(sessionId));
      }
      // …served by the other replicas too (round-robin), from the shared cache.
      expect(answeredBy.filter((r) => r !== computedBy).length, `answered by ${answeredBy}`).toBeGreaterThan(
        0,
      );
      // A key nobody asked for yet runs where it lands: the tool itself is not sticky.
      const fresh = new Set<number>();
      for (let n = 0; n < 3; n++) {
        fresh.add(content(await run(session.client, 'cluster:lookup', { key: `${key}-${n}` })).pid);
      }
      expect(fresh.size).toBeGreaterThan(1);
    } finally {
      await session.close();
    }
  });

  it.skipIf(skip)('4. a query learned on one replica ranks the tool first on another', async () => {
    const c = cluster as ReplicaCluster;
    const query = 'sales report';
    const ranking = async (client: Client) => {
      const result = await client.callTool({ name: 'search_tools', arguments: { query, limit: 5 } });
      return (content(result).tools as { id?: string; tool_id?: string }[]).map((t) => t.id ?? t.tool_id);
    };
    // On replica 0 alone: the query finds both reports; teach it the one it ranks lower.
    const one = await connect(`${c.replicas[0]?.url}/mcp`);
    let taught: string;
    try {
      const before = await ranking(one.client);
      expect(before).toEqual(expect.arrayContaining(['cluster:quarterly_report', 'cluster:weekly_report']));
      taught = before[0] === 'cluster:weekly_report' ? 'cluster:quarterly_report' : 'cluster:weekly_report';
      expect(before[0]).not.toBe(taught);
      for (let n = 0; n < 3; n++) {
        await ranking(one.client);
        expect((await run(one.client, taught)).isError).toBeFalsy();
      }
      expect((await ranking(one.client))[0]).toBe(taught);
    } finally {
      await one.close();
    }
    // Through the balancer, searches answered by the other replicas rank it first (what replica 0
    // learned reaches the others within seconds: it is written behind, then published).
    const session = await connect(`${c.url}/mcp`);
    try {
      const sessionId = session.transport.sessionId as string;
      const firstOn = new Map<number, string | undefined>();
      await waitFor(
        'the learned ranking on every replica',
        async () => {
          const first = (await ranking(session.client))[0];
          firstOn.set(lastAnswer(sessionId), first);
          return [0, 1, 2].every((r) => firstOn.get(r) === taught);
        },
        10_000,
      ).catch((error) => {
        throw new Error(
          `${(error as Error).message}: first result per replica ${JSON.stringify([...firstOn])}`,
        );
      });
    } finally {
      await session.close();
    }
  });

  it.skipIf(skip)(
    '5. a downstream tool list change reaches tools/list_changed clients on every replica within 2 s',
    async () => {
      const c = cluster as ReplicaCluster;
      // Sessions through the balancer until their GET streams (where notifications travel) are
      // held by every replica.
      const sessions: (Connected & { notified: number; stream: number })[] = [];
      try {
        while (new Set(sessions.map((s) => s.stream)).size < 3 && sessions.length < 12) {
          const streams: number[] = [];
          const s = Object.assign(
            await connect(`${c.url}/mcp`, 'legacy', (method, upstream) => {
              if (method === 'GET') streams.push(c.replicaAt(upstream));
            }),
            { notified: 0, stream: -1 },
          );
          s.client.setNotificationHandler('notifications/tools/list_changed', () => {
            s.notified++;
          });
          sessions.push(s);
          await waitFor('the GET stream', () => streams.length > 0, 10_000);
          s.stream = streams[0] as number;
          // Round-robin is strict and every session opens with the same requests: one more
          // request moves the next session's GET stream to the next replica.
          await fetch(`${c.url}/healthz`);
        }
        expect(new Set(sessions.map((s) => s.stream)).size).toBe(3);

        // One replica's own downstream server changes its tools (the others' do not).
        const trigger = sessions[0] as Connected;
        const name = `added_${Date.now()}`;
        const added = await run(trigger.client, 'faulty:add_tool', { name });
        expect(added.isError, JSON.stringify(added)).toBeFalsy();
        await waitFor(
          'tools/list_changed on every session',
          () => sessions.every((s) => s.notified > 0),
          2000,
        ).catch((error) => {
          throw new Error(
            `${(error as Error).message}: ${JSON.stringify(sessions.map((s) => ({ stream: s.stream, notified: s.notified })))}`,
          );
        });
      } finally {
        await Promise.all(sessions.map((s) => s.close()));
      }
    },
    60_000,
  );

  it.skipIf(skip)(
    '6. without Redis the replicas serve stateless requests and local tools and say why in /readyz; with Redis back, full service within 10 s',
    async () => {
      const c = cluster as ReplicaCluster;
      await c.stopRedis();
      try {
        // 2026-07-28 requests need nothing shared: all of them are answered, by every replica.
        const modern = await connect(`${c.url}/mcp`, 'auto');
        try {
          expect(modern.client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
          const ran = new Set<number>();
          for (let n = 0; n < 6; n++) {
            const result = await run(modern.client, 'cluster:whereami', { n });
            expect(result.isError, JSON.stringify(result)).toBeFalsy();
            ran.add(replicaOf(content(result).pid));
          }
          expect(ran.size).toBe(3);
        } finally {
          await modern.close();
        }
        for (const replica of c.replicas) {
          const response = await fetch(`${replica.url}/readyz`);
          expect(response.status).toBe(503);
          expect((await response.text()).toLowerCase()).toContain('redis');
          expect(replica.child.exitCode).toBeNull();
        }
      } finally {
        await c.startRedis();
      }
      // Redis back: every replica ready again, and 2025-era sessions work, within 10 s.
      await waitFor(
        'every replica ready',
        async () => {
          const statuses = await Promise.all(
            c.replicas.map((r) => fetch(`${r.url}/readyz`).then((x) => x.status)),
          );
          return statuses.every((status) => status === 200);
        },
        10_000,
      );
      const session = await connect(`${c.url}/mcp`);
      try {
        for (let n = 0; n < 6; n++) {
          expect((await run(session.client, 'cluster:whereami', { n })).isError).toBeFalsy();
        }
      } finally {
        await session.close();
      }
      expect(c.replicas.every((r) => r.child.exitCode === null && r.child.signalCode === null)).toBe(true);
      // The outage was logged once per replica, not once per failed command or retry.
      for (const replica of c.replicas) {
        expect(replica.stderr().split('Redis is unreachable').length - 1, replica.stderr().slice(-2000)).toBe(
          1,
        );
      }
    },
    60_000,
  );
});
