#!/usr/bin/env node
import {
  BASELINE_SERVER,
  FIXTURE_CONFIG,
  GATEWAY_CLI,
  machine,
  median,
  ms,
  option,
  ROOT,
  rssMiB,
  runIfMain,
  signed,
  summarize,
  table,
} from './lib/common.js';
import { gatewayModules } from './lib/in-process-gateway.js';
import { connectHttp, connectHttpModern, connectStdio, startHttpServer } from './lib/mcp-clients.js';

/** The baseline of the 2026-07-28 wire: the same no-op tool on a bare SDK v2 stateless server. */
const MODERN_BASELINE_SERVER = `${ROOT}/bench/fixtures/baseline-modern-noop-server.mjs`;

/** The p50 overhead the pipeline may add over the bare SDK server (DESIGN target). */
export const TARGET_ADDED_P50_MS = 0.2;

const GATEWAY_ARGS = ['serve', '--config', FIXTURE_CONFIG];

/**
 * The three call targets of one transport. Each has its own client and connection (the two
 * gateway targets: two sessions of one gateway process over HTTP, two gateway processes over
 * stdio), so that client-side state which grows with the number of calls weighs on every target
 * alike: the SDK's Streamable HTTP client passes one AbortSignal to every fetch, and its abort
 * listeners pile up (Node warns past 1,500 after a few thousand calls on one client).
 */
function targetSpecs(): any[] {
  return [
    {
      key: 'baseline',
      label: 'baseline SDK server, `noop`',
      server: 'baseline',
      call: (client: any) => client.callTool({ name: 'noop', arguments: {} }),
    },
    {
      key: 'runTool',
      label: 'gateway, `run_tool` → `fixture:noop`',
      server: 'gateway',
      call: (client: any) =>
        client.callTool({ name: 'run_tool', arguments: { tool_id: 'fixture:noop', args: {} } }),
    },
    {
      key: 'flat',
      label: 'gateway, flat `fixture__noop`',
      server: 'gateway',
      call: (client: any) => client.callTool({ name: 'fixture__noop', arguments: {} }),
    },
  ];
}

/** Runs `count` sequential calls, pushing each latency (ms) into `sink` when given. */
async function block(target: any, count: number, sink?: any) {
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    const result = await target.call(target.client);
    const elapsed = performance.now() - start;
    if (result.isError) throw new Error(`${target.key} failed: ${JSON.stringify(result)}`);
    sink?.push(elapsed);
  }
}

/** Checks that every target answers what a no-op answers before timing anything. */
async function checkTargets(list: any) {
  for (const target of list) {
    const result = await target.call(target.client);
    if (result.isError || JSON.stringify(result.structuredContent ?? {}) !== '{}') {
      throw new Error(`${target.key}: unexpected result ${JSON.stringify(result)}`);
    }
  }
}

async function measureTransport(transport: any, { n, warmup, blockSize }: any) {
  // `http2026`: Streamable HTTP in the 2026-07-28 revision (stateless), against a bare SDK v2
  // server; `http`: the 2025 sessions against the bare v1-style server.
  const modern = transport === 'http2026';
  const overHttp = transport === 'http' || modern;
  const mode = overHttp ? '--http' : '--stdio';
  const args: Record<string, string[]> = {
    gateway: [GATEWAY_CLI, ...GATEWAY_ARGS, mode, ...(overHttp ? ['--port', '0'] : [])],
    baseline: modern ? [MODERN_BASELINE_SERVER] : [BASELINE_SERVER, mode],
  };
  const servers: Record<string, any> = {};
  const list = targetSpecs();
  try {
    for (const target of list) {
      if (overHttp) {
        servers[target.server] ??= await startHttpServer(args[target.server]!);
        target.connection = modern
          ? await connectHttpModern(target.key, servers[target.server])
          : await connectHttp(target.key, servers[target.server]);
      } else {
        target.connection = await connectStdio(target.key, args[target.server]!);
      }
      target.client = target.connection.client;
      // A real client lists tools first (the SDK client also caches output validators from it).
      await target.client.listTools();
    }
    await checkTargets(list);

    const samples: Record<string, number[]> = Object.fromEntries(list.map((t) => [t.key, []]));
    const roundP50: Record<string, number[]> = Object.fromEntries(list.map((t) => [t.key, []]));
    const rounds = Math.ceil(n / blockSize);
    const warmRounds = Math.ceil(warmup / blockSize);
    const started = performance.now();
    for (let r = 0; r < warmRounds; r++) {
      for (const target of list) await block(target, Math.min(blockSize, warmup - r * blockSize));
    }
    for (let r = 0; r < rounds; r++) {
      const count = Math.min(blockSize, n - r * blockSize);
      // Rotate the order so that no target always runs right after another.
      const order = list.map((_, i) => list[(i + r) % list.length]);
      for (const target of order) {
        const round: any = [];
        await block(target, count, round);
        samples[target.key]!.push(...round);
        roundP50[target.key]!.push(median(round));
      }
      process.stderr.write(`  ${transport}: round ${r + 1}/${rounds}\r`);
    }
    process.stderr.write('\n');
    const seconds = (performance.now() - started) / 1000;

    const stats: Record<string, any> = Object.fromEntries(
      list.map((t) => [t.key, summarize(samples[t.key]!)]),
    );
    const overhead: Record<string, any> = {};
    for (const key of ['runTool', 'flat']) {
      // Paired by round: each gateway block against the baseline block of the same round.
      const diffs = roundP50[key]!.map((v, i) => v - roundP50.baseline![i]!);
      overhead[key] = {
        ratioP50: stats[key].p50 / stats.baseline.p50,
        addedP50: stats[key].p50 - stats.baseline.p50,
        addedP95: stats[key].p95 - stats.baseline.p95,
        addedP99: stats[key].p99 - stats.baseline.p99,
        pairedAddedP50: median(diffs),
      };
    }
    return {
      labels: Object.fromEntries(list.map((t) => [t.key, t.label])),
      stats,
      overhead,
      seconds,
      rssMiB: { gateway: rssMiB(list[1].connection.pid), baseline: rssMiB(list[0].connection.pid) },
    };
  } finally {
    for (const target of list) await target.connection?.close();
    for (const server of Object.values<any>(servers)) await server.stop();
  }
}

/** Runs the benchmark and returns its results (plain data). */
/**
 * The pipeline alone, without any transport: `ToolScope.run('fixture:noop')` on a Gateway built
 * in this process from the same config (same logger, validator and pipeline as `serve`).
 * Runs last: loading the fixture's TypeScript module registers tsx's loader hooks in this process.
 */
async function measureInProcess(calls: any) {
  const modules = await gatewayModules();
  if (!modules) return undefined; // a bundled build: no separate modules
  const { loadConfig, createLogger, Gateway } = modules;
  const loaded = await loadConfig({ file: FIXTURE_CONFIG, cwd: ROOT, env: process.env });
  const log = createLogger({ level: loaded.config.observability.logLevel });
  const gateway = await Gateway.create({ loaded, log });
  try {
    const options = { caller: { identity: 'bench' } };
    const warmup = Math.round(calls / 10);
    const samples: number[] = [];
    for (let i = 0; i < calls + warmup; i++) {
      const start = performance.now();
      const result = await gateway.scope.run('fixture:noop', {}, options);
      const elapsed = performance.now() - start;
      if (result.isError) throw new Error(`in-process run failed: ${JSON.stringify(result)}`);
      if (i >= warmup) samples.push(elapsed);
    }
    return { ...summarize(samples), warmup };
  } finally {
    await gateway.close();
  }
}

export async function run(options: any = {}) {
  const n = options.n ?? option('n', 2000);
  const warmup = options.warmup ?? option('warmup', 200);
  const blockSize = options.block ?? option('block', 200);
  const transports = (options.transports ?? option('transports', 'stdio,http')).split(',').filter(Boolean);
  const results: Record<string, any> = {
    config: { n, warmup, block: blockSize, transports },
    machine: machine(),
    transports: {},
  };
  for (const transport of transports) {
    process.stderr.write(`run-tool-latency: ${transport}, ${n} calls × 3 targets after ${warmup} warm-up\n`);
    results.transports[transport] = await measureTransport(transport, { n, warmup, blockSize });
  }
  const inProcessCalls = options.inProcessCalls ?? option('in-process-calls', 20000);
  if (inProcessCalls > 0) {
    process.stderr.write(`run-tool-latency: in process, ${inProcessCalls} calls\n`);
    results.inProcess = await measureInProcess(inProcessCalls);
  }
  return results;
}

/** The results as a Markdown section. */
export function render(results: any) {
  const { n, warmup, block: blockSize } = results.config;
  const out = [
    '## `run_tool` latency (no-op tool)',
    '',
    `${n} sequential calls per target after ${warmup} warm-up, interleaved in blocks of ${blockSize}; ` +
      'official SDK client; times in ms.',
    '',
  ];
  for (const [transport, r] of Object.entries<any>(results.transports)) {
    const heading: Record<string, string> = {
      stdio: 'stdio',
      http: 'Streamable HTTP',
      http2026: 'Streamable HTTP, 2026-07-28 (stateless; baseline: bare SDK v2 server)',
    };
    out.push(`### ${heading[transport] ?? transport}`, '');
    out.push(
      table(
        [
          'target',
          'p50',
          'p95',
          'p99',
          'mean',
          'p50 ratio vs baseline',
          'added at p50',
          'added at p50, paired by round',
        ],
        ['baseline', 'runTool', 'flat'].map((key) => {
          const s = r.stats[key];
          const o = r.overhead[key];
          return [
            r.labels[key],
            ms(s.p50),
            ms(s.p95),
            ms(s.p99),
            ms(s.mean),
            o ? `${o.ratioP50.toFixed(2)}×` : '1.00×',
            o ? signed(o.addedP50) : '—',
            o ? signed(o.pairedAddedP50) : '—',
          ];
        }),
      ),
    );
    const added = r.overhead.runTool.addedP50;
    out.push(
      '',
      `Target: the pipeline adds ≤ ${TARGET_ADDED_P50_MS} ms at p50 — run_tool adds ${ms(added)} ms: ` +
        `**${added <= TARGET_ADDED_P50_MS ? 'met' : 'missed'}**; flat adds ${ms(r.overhead.flat.addedP50)} ms: ` +
        `**${r.overhead.flat.addedP50 <= TARGET_ADDED_P50_MS ? 'met' : 'missed'}**. ` +
        `RSS after the run: gateway ${r.rssMiB.gateway.toFixed(1)} MiB, baseline ${r.rssMiB.baseline.toFixed(1)} MiB ` +
        `(${r.seconds.toFixed(1)} s measured).`,
      '',
    );
  }
  const p = results.inProcess;
  if (p) {
    out.push(
      '### The pipeline alone, in process',
      '',
      `\`ToolScope.run('fixture:noop')\` on a Gateway built in the benchmark process from the same config, ` +
        `${p.n} sequential calls after ${p.warmup} warm-up: ` +
        `p50 ${ms(p.p50 * 1000, 1)} µs, p95 ${ms(p.p95 * 1000, 1)} µs, p99 ${ms(p.p99 * 1000, 1)} µs, ` +
        `mean ${ms(p.mean * 1000, 1)} µs.`,
      '',
    );
  }
  return out.join('\n');
}

runIfMain(import.meta.url, run, render);
