/**
 * Learning from use across replicas, end to end with real parts: a real Redis, three `aperture
 * serve` processes on `state.driver: redis`, nginx in front, the official SDK client. One MCP
 * session searches on one replica and runs the tool it found on another, three times: every
 * replica learns the query (its `explain` lists it and ranks the tool first), and the tool, which
 * a decoy sharing the query's words outranked, is first after at most three confirmations.
 * Without redis-server or nginx the test is reported skipped, by name.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/fixture-servers.js';
import { clusterMissing, type ReplicaCluster, startReplicaCluster } from '../support/replica-cluster.js';

const TOOLS = new URL('../fixtures/federation/learning-tools.ts', import.meta.url).pathname;
const skip = clusterMissing();
const QUERY = 'export the monthly sales figures';
const TARGET = 'bi:export_table';
const DECOY = 'sales:monthly_sales_summary';

interface Explained {
  id: string;
  explanation?: { learned?: { queries: string[]; confirmed?: { weight: number; share: number } } };
}

describe(`learning from use across three replicas on Redis behind nginx${skip}`, () => {
  let cluster: ReplicaCluster | null = null;

  beforeAll(async () => {
    if (skip) return;
    cluster = await startReplicaCluster({
      replicas: 3,
      config: {
        server: { name: 'aperture-learning' },
        tools: { modules: [TOOLS] },
        exposure: 'metatools',
        observability: { logLevel: 'warn' },
      },
    });
  }, 120_000);

  afterAll(async () => {
    await cluster?.[Symbol.asyncDispose]();
  }, 60_000);

  /** The REST ranking of the query on replica `index` itself (not through the balancer), explained. */
  const explained = async (index: number): Promise<Explained[]> => {
    const url = `${cluster?.replicas[index]?.url}/api/tools?q=${encodeURIComponent(QUERY)}&explain=true&limit=5`;
    const response = await fetch(url);
    expect(response.status).toBe(200);
    return ((await response.json()) as { tools: Explained[] }).tools;
  };

  it.skipIf(skip)(
    'a search on one replica and a run on another teach every replica; the tool overtakes a decoy within three confirmations',
    async () => {
      const c = cluster as ReplicaCluster;
      // Before anything is learned the decoy, which shares more of the query's words, ranks first.
      for (const index of [0, 1, 2]) expect((await explained(index))[0]?.id).toBe(DECOY);

      // One session; each request goes to the replica `target` names (no affinity), the path kept.
      let target = 0;
      const landed: number[] = [];
      const transport = new StreamableHTTPClientTransport(new URL(`${c.url}/mcp`), {
        fetch: (input, init) => {
          const url = new URL(input instanceof Request ? input.url : String(input));
          const replica = new URL(c.replicas[target]?.url as string);
          url.host = replica.host;
          if (init?.method === 'POST') landed.push(target);
          return fetch(url, init);
        },
      });
      const client = new Client(
        { name: 'learning-e2e', version: '1.0.0' },
        { versionNegotiation: { mode: 'legacy' } },
      );
      await client.connect(transport);
      try {
        const firstAfter: (number | undefined)[] = [];
        for (let n = 0; n < 3; n++) {
          const searchOn = n % 3;
          const runOn = (n + 1) % 3;
          target = searchOn;
          const found = await client.callTool({
            name: 'search_tools',
            arguments: { query: QUERY, limit: 5 },
          });
          const ids = (
            (found as { structuredContent: { tools: { id?: string; tool_id?: string }[] } }).structuredContent
              .tools ?? []
          ).map((t) => t.id ?? t.tool_id);
          expect(ids).toContain(TARGET);
          target = runOn;
          const ran = await client.callTool({ name: 'run_tool', arguments: { tool_id: TARGET, args: {} } });
          expect(ran.isError, JSON.stringify(ran)).toBeFalsy();
          // The confirmation reaches every replica (written behind, then published): each counts
          // it before the next search, as an agent's next turn would find it.
          await waitFor(
            `confirmation ${n + 1} on every replica`,
            async () => {
              const weights = await Promise.all(
                [0, 1, 2].map(async (index) => {
                  const hit = (await explained(index)).find((t) => t.id === TARGET);
                  return hit?.explanation?.learned?.confirmed?.weight ?? 0;
                }),
              );
              return weights.every((weight) => weight >= n + 1 - 0.01);
            },
            10_000,
          );
          firstAfter.push((await explained(runOn))[0]?.id === TARGET ? n + 1 : undefined);
        }
        // Searches and runs really landed on different replicas.
        expect(new Set(landed)).toEqual(new Set([0, 1, 2]));
        // First after at most three confirmations, and stays first.
        expect(firstAfter.at(-1)).toBe(3);
        // Every replica lists the learned query and ranks the tool first for it, with its share.
        for (const index of [0, 1, 2]) {
          const ranking = await explained(index);
          expect(ranking[0]?.id, `replica ${index}`).toBe(TARGET);
          expect(ranking[0]?.explanation?.learned?.queries).toContain(QUERY);
          expect(ranking[0]?.explanation?.learned?.confirmed?.share).toBeGreaterThan(0);
          expect(ranking.map((t) => t.id)).toContain(DECOY);
        }
        // Naming the decoy exactly still finds it first, whatever was learned for the query.
        const named = await fetch(`${c.replicas[1]?.url}/api/tools?q=monthly_sales_summary&limit=3`);
        expect(((await named.json()) as { tools: { id: string }[] }).tools[0]?.id).toBe(DECOY);
        // The session's searches are in Redis, with the session's TTL.
        const redis = new Redis(c.redis.url);
        try {
          const keys = await redis.keys(`*search:recent:${transport.sessionId}`);
          expect(keys.length).toBe(1);
          expect(await redis.pttl(keys[0] as string)).toBeGreaterThan(0);
        } finally {
          redis.disconnect();
        }
      } finally {
        await client.close().catch(() => {});
      }
    },
    90_000,
  );
});
