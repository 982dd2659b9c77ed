/**
 * 2026-07-28 input rounds behind a balancer: two `aperture serve` replicas on one real Redis and a
 * real nginx sending each request to the next replica (no affinity). A downstream server (the
 * asking fixture, a stdio child of each replica) asks its client during a call; the round's
 * answer lands on the other replica, which verifies the state (the key is the replicas' one) and
 * hands the round to the replica keeping the call. A state replayed on another tool is refused.
 * Without redis-server or nginx every test here is reported skipped, by name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureServerPath } from '../support/fixture-servers.js';
import { clusterMissing, type ReplicaCluster, startReplicaCluster } from '../support/replica-cluster.js';

const skip = clusterMissing();
const MODERN = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
};

interface Answer {
  /** The replica that answered (index in the cluster). */
  replica: number;
  result?: Record<string, any>;
  error?: { code: number; message: string };
}

describe(`2026-07-28 input rounds across two replicas behind nginx${skip}`, () => {
  let cluster: ReplicaCluster | null = null;

  /** A raw 2026-07-28 `tools/call` through the balancer (a client library does not let a test shape it freely). */
  async function call(id: number, name: string, extra: Record<string, unknown> = {}): Promise<Answer> {
    const c = cluster as ReplicaCluster;
    const response = await fetch(`${c.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/call',
        'mcp-name': name,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name, arguments: {}, ...extra, _meta: ENVELOPE },
      }),
    });
    const body = (await response.json()) as Omit<Answer, 'replica'>;
    return { replica: c.replicaAt(response.headers.get('x-upstream-addr')), ...body };
  }

  /** The answer to the one ask of a round, as the client re-sends its request. */
  function answering(round: Answer): Record<string, unknown> {
    const [key] = Object.keys(round.result?.inputRequests ?? {});
    return {
      inputResponses: { [key as string]: { action: 'accept', content: { ok: true } } },
      requestState: round.result?.requestState,
    };
  }

  beforeAll(async () => {
    if (skip) return;
    cluster = await startReplicaCluster({
      replicas: 2,
      config: {
        server: { name: 'aperture-rounds' },
        servers: { asking: { command: process.execPath, args: [fixtureServerPath('asking-server.mjs')] } },
        tools: { builtin: true },
        exposure: 'flat',
        observability: { logLevel: 'warn' },
      },
    });
    // Each replica has listed its own asking server before a call is sent to it.
    for (const replica of cluster?.replicas ?? []) {
      for (let attempt = 0; ; attempt++) {
        const response = await fetch(`${replica.url}/readyz`).catch(() => undefined);
        if (response?.ok) break;
        if (attempt > 200) throw new Error(`replica ${replica.index} not ready:\n${replica.stderr()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }, 120_000);

  afterAll(async () => {
    await cluster?.[Symbol.asyncDispose]();
  }, 60_000);

  it('completes a round started on one replica and answered on the other, with the right result', async () => {
    const asked = await call(1, 'asking__ask');
    expect(asked.result?.resultType, JSON.stringify(asked)).toBe('input_required');
    const done = await call(2, 'asking__ask', answering(asked));
    // Round-robin with no affinity: the answer reached the replica that does not keep the call.
    expect(done.replica).not.toBe(asked.replica);
    expect(done.replica).toBeGreaterThanOrEqual(0);
    expect(done.error, JSON.stringify(done.error)).toBeUndefined();
    expect(done.result?.content?.[0]?.text).toBe('answered: accept');
  }, 30_000);

  it("refuses a round's state replayed on another tool, and the call it names still completes", async () => {
    const asked = await call(11, 'asking__ask');
    expect(asked.result?.resultType, JSON.stringify(asked)).toBe('input_required');
    // A tool the gateway serves beside the asking one: a replay target that exists.
    const replayed = await call(12, 'time__now', answering(asked));
    expect(replayed.error?.code).toBe(-32602);
    expect(replayed.error?.message).toMatch(
      /belongs to another request: it was issued for tools\/call:asking__ask, not tools\/call:time__now/,
    );
    expect(replayed.result).toBeUndefined();
    const done = await call(13, 'asking__ask', answering(asked));
    expect(done.result?.content?.[0]?.text).toBe('answered: accept');
  }, 30_000);
});
