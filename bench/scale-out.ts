#!/usr/bin/env node
/**
 * Scale-out under load: N replicas on Redis behind nginx against one replica behind the same
 * nginx (the same path: balancer, Redis, `state.driver: redis`), measured in one run.
 *
 *   npx tsx bench/scale-out.ts [--scale-sessions 100] [--scale-calls 100] [--scale-replicas 3] [--scale-rounds 1]
 *                              [--scale-era 2025|2026]   (2026: stateless 2026-07-28 clients instead of sessions)
 *
 * Each of `sessions` official SDK clients opens a 2025-era session through the balancer (so its
 * state must be shared: with no affinity its requests land on every replica) and makes `calls`
 * `run_tool` calls one after the other, all clients at once. A call that throws or answers an error
 * is lost: the benchmark reports them and fails if there is any. Needs redis-server and nginx (Debian
 * packages, see .ci/run); without them it prints that it was skipped.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { clusterMissing, startReplicaCluster } from '../test/support/replica-cluster.js';
import { machine, ms, option, percentile, runIfMain, table } from './lib/common.js';
import { cpuSeconds } from './lib/proc.js';

const TOOLS = new URL('../test/fixtures/cluster/cluster-tools.ts', import.meta.url).pathname;

/** Goal of the issue: N=3 replicas give this many times one replica's throughput, given the cores. */
export const TARGET_THROUGHPUT_RATIO = 2.5;
/** Cores the goal assumes: each replica (and the balancer, Redis and the load generator) its own. */
export const TARGET_CORES = 6;

interface VariantResult {
  replicas: number;
  calls: number;
  lost: number;
  lostExamples: string[];
  seconds: number;
  perSecond: number;
  p50: number;
  p95: number;
  p99: number;
  /** Calls that ran on each replica (from the pid in each answer). */
  perReplica: number[];
  /** CPU seconds of the replicas together during the load. */
  replicaCpu: number;
}

/** `2025`: a 2025-era session per client (the default); `2026`: 2026-07-28 requests, stateless. */
type Era = '2025' | '2026';

async function connect(url: string, label: string, era: Era) {
  const client = new Client(
    { name: `bench-${label}`, version: '1.0.0' },
    { versionNegotiation: { mode: era === '2025' ? 'legacy' : { pin: '2026-07-28' } } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return { client, close: () => client.close().catch(() => {}) };
}

async function measure(replicas: number, sessions: number, calls: number, era: Era): Promise<VariantResult> {
  await using cluster = await startReplicaCluster({
    replicas,
    config: {
      tools: { builtin: true, modules: [TOOLS] },
      exposure: 'metatools',
      // Behind a balancer every connection comes from its address.
      http: { maxConnectionsPerAddress: 4096 },
      observability: { logLevel: 'warn', metrics: false },
    },
  });
  if (!cluster) throw new Error(`scale-out: ${clusterMissing()}`);
  const pids = cluster.replicas.map((r) => r.child.pid);
  const clients = await Promise.all(
    Array.from({ length: sessions }, (_, i) => connect(`${cluster.url}/mcp`, `${replicas}-${i}`, era)),
  );
  const latencies: number[] = [];
  const perReplica = pids.map(() => 0);
  const lostExamples: string[] = [];
  let lost = 0;
  const lose = (what: string) => {
    lost++;
    if (lostExamples.length < 5) lostExamples.push(what);
  };
  const call = async (client: Client, n: number) => {
    const start = performance.now();
    try {
      const result = await client.callTool({
        name: 'run_tool',
        arguments: { tool_id: 'cluster:whereami', args: { n } },
      });
      if (result.isError)
        return lose(JSON.stringify(result.structuredContent ?? result.content).slice(0, 200));
      const pid = (result.structuredContent as { pid?: number }).pid;
      const index = pids.indexOf(pid);
      if (index >= 0) perReplica[index] = (perReplica[index] ?? 0) + 1;
      latencies.push(performance.now() - start);
    } catch (error) {
      lose((error as Error).message.slice(0, 200));
    }
  };
  try {
    // One untimed call per session: every session exists and every replica is warm.
    await Promise.all(
      clients.map((c) =>
        c.client.callTool({ name: 'run_tool', arguments: { tool_id: 'cluster:whereami', args: {} } }),
      ),
    );
    perReplica.fill(0);
    const replicasCpu = () => pids.reduce<number>((sum, pid) => sum + cpuSeconds(pid), 0);
    const cpuBefore = replicasCpu();
    const started = performance.now();
    await Promise.all(
      clients.map(async ({ client }) => {
        for (let n = 0; n < calls; n++) await call(client, n);
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const replicaCpu = replicasCpu() - cpuBefore;
    const sorted = [...latencies].sort((a, b) => a - b);
    return {
      replicas,
      calls: sessions * calls,
      lost,
      lostExamples,
      seconds,
      perSecond: latencies.length / seconds,
      p50: percentile(sorted, 50),
      p95: percentile(sorted, 95),
      p99: percentile(sorted, 99),
      perReplica,
      replicaCpu,
    };
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
}

export async function run() {
  const sessions = option('scale-sessions', 100);
  const calls = option('scale-calls', 100);
  const replicas = option('scale-replicas', 3);
  const rounds = option('scale-rounds', 1);
  const era = option('scale-era', '2025');
  if (era !== '2025' && era !== '2026') throw new Error(`--scale-era: 2025 or 2026, not ${era}`);
  const missing = clusterMissing();
  const config = { sessions, calls, replicas, rounds, era };
  if (missing) return { config, machine: machine(), skipped: missing.trim(), variants: [] };
  const variants: VariantResult[][] = [[], []];
  for (let r = 0; r < rounds; r++) {
    // Alternate which goes first, so that drift in the machine's load hits both alike.
    const order = r % 2 === 0 ? [0, 1] : [1, 0];
    for (const which of order) {
      const n = which === 0 ? 1 : replicas;
      process.stderr.write(
        `  scale-out: ${n} replica(s), round ${r + 1}/${rounds}, ${sessions} sessions × ${calls} calls\n`,
      );
      variants[which]?.push(await measure(n, sessions, calls, era));
    }
  }
  const all = variants.flat();
  const lost = all.reduce((sum, v) => sum + v.lost, 0);
  const result = { config, machine: machine(), variants, lost };
  if (lost > 0) {
    process.stderr.write(`${render(result)}\n`);
    throw new Error(`scale-out: ${lost} lost calls: ${all.flatMap((v) => v.lostExamples).join('; ')}`);
  }
  return result;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/** The median of each figure over the rounds, and the ratios N replicas / one. */
export function summary(results: any) {
  const pick = (rows: VariantResult[], key: keyof VariantResult) => median(rows.map((r) => r[key] as number));
  const [one = [], many = []] = results.variants as VariantResult[][];
  const figures = (rows: VariantResult[]) => ({
    perSecond: pick(rows, 'perSecond'),
    p50: pick(rows, 'p50'),
    p95: pick(rows, 'p95'),
    cpuMsPerCall: (pick(rows, 'replicaCpu') * 1000) / (rows[0]?.calls ?? 1),
  });
  const a = figures(one);
  const b = figures(many);
  return {
    one: a,
    many: b,
    throughputRatio: b.perSecond / a.perSecond,
    p50Ratio: b.p50 / a.p50,
    p95Ratio: b.p95 / a.p95,
  };
}

export function render(results: any): string {
  const { sessions, calls, replicas, rounds, era = '2025' } = results.config;
  const heading = `## Scale-out: ${replicas} replicas vs 1 behind nginx, on Redis (${sessions} ${era === '2025' ? 'sessions' : 'stateless 2026-07-28 clients'} × ${calls} calls)`;
  if (results.skipped) return `${heading}\n\nSkipped: ${results.skipped}.`;
  const rows = (results.variants as VariantResult[][]).flatMap((list) =>
    list.map((v) => [
      v.replicas,
      v.calls,
      v.lost,
      Math.round(v.perSecond),
      ms(v.p50, 1),
      ms(v.p95, 1),
      ms(v.p99, 1),
      v.perReplica.join(' / '),
      ms((v.replicaCpu * 1000) / v.calls, 3),
    ]),
  );
  const s = summary(results);
  return [
    heading,
    '',
    `${results.machine.nproc} CPUs; ${rounds} round(s). Every call is \`run_tool\` of a local tool ` +
      `${era === '2025' ? 'in a 2025-era session' : 'as a 2026-07-28 request (stateless, no session)'} sent ` +
      'through the balancer (round-robin per request, no affinity); the load generator, nginx, Redis and the ' +
      'replicas share the machine.',
    '',
    table(
      [
        'replicas',
        'calls',
        'lost',
        'calls/s',
        'p50 ms',
        'p95 ms',
        'p99 ms',
        'calls per replica',
        'replica CPU ms/call',
      ],
      rows,
    ),
    '',
    `${replicas} replicas / 1 replica: throughput **${s.throughputRatio.toFixed(2)}×**, p50 ${s.p50Ratio.toFixed(2)}×, ` +
      `p95 ${s.p95Ratio.toFixed(2)}× (goal ≥ ${TARGET_THROUGHPUT_RATIO}× throughput with ${TARGET_CORES}+ cores).`,
  ].join('\n');
}

runIfMain(import.meta.url, run, render);
