#!/usr/bin/env node
/**
 * What the operations middlewares cost per call: `run_tool` on the no-op fixture tool through the
 * pipeline, in process (`gateway.scope.run`, no transport, so nothing hides a few microseconds),
 * with observability on against the same gateway with it off.
 *
 * Variants, each a Gateway built in this process from its own config file, measured side by side:
 *   off        metrics, tracing and call logs all off (the baseline)
 *   metrics    Prometheus metrics only
 *   tracing    OTLP spans only, exported to a sink in a child process (batch processor, JSON)
 *   logs       one call log line per call only (pino at info, to /dev/null)
 *   on         all three: what a production gateway runs
 * More variants (a cache hit, auth) are entries of VARIANTS: a key, a label, the config sections
 * they set, and optionally their own call.
 *
 * After a warm-up, measurement alternates blocks of `ops-block` calls between the variants,
 * rotating the order each round, so that machine noise, drift and GC fall on all alike. "Added" is
 * p50(variant) − p50(off); "paired by round" is the median over rounds of the difference between
 * block medians.
 *
 * Options (argv `--name value`, or env `BENCH_NAME`): ops-n (20000 measured calls per variant),
 * ops-warmup (2000 per variant), ops-block (1000), ops-variants (all, comma-separated), json-out.
 * Prints a Markdown section on stdout, progress on stderr.
 */
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  GATEWAY_CLI,
  interleavedRounds,
  machine,
  median,
  ms,
  option,
  ROOT,
  runIfMain,
  signed,
  spawnTracked,
  stopChild,
  summarize,
  table,
} from './lib/common.js';
import { gatewayModules } from './lib/in-process-gateway.js';

/** The p50 the operations middlewares (metrics + tracing + call logs) may add per call. */
export const TARGET_ADDED_P50_MS = 0.15;

const FIXTURE_TOOLS = path.join(ROOT, 'test', 'fixtures', 'tools', '*.ts');
const CALLER = { caller: { identity: 'bench' } };
/** A 2 KB sequence diagram: encoding it (deflate + PlantUML's base64) is real work to cache. */
const PLANTUML_SOURCE = Array.from({ length: 60 }, (_, i) => `A${i % 7} -> B${i % 5} : step ${i}`).join('\n');

/**
 * The variants. `observability` is the config section (YAML flow syntax); `{otlp}` is replaced by
 * the sink's URL. A variant may add other sections (`sections`) or its own `call(gateway)`.
 */
let missSequence = 0;

export const VARIANTS = [
  {
    key: 'off',
    label: 'observability off',
    observability: '{ logLevel: info, metrics: false, callLogs: false }',
  },
  {
    key: 'metrics',
    label: 'Prometheus metrics only',
    observability: '{ logLevel: info, metrics: true, callLogs: false }',
  },
  {
    key: 'tracing',
    label: 'OTLP tracing only',
    observability: '{ logLevel: info, metrics: false, callLogs: false, otlp: { endpoint: "{otlp}" } }',
  },
  {
    // Against `tracing`: what exporting the metrics over OTLP too adds per call.
    key: 'tracing-metrics',
    label: 'OTLP tracing + OTLP metrics',
    observability:
      '{ logLevel: info, metrics: false, callLogs: false, otlp: { endpoint: "{otlp}", metrics: true, metricsIntervalMs: 1000 } }',
  },
  {
    key: 'logs',
    label: 'call logs only',
    observability: '{ logLevel: info, metrics: false, callLogs: true }',
  },
  {
    key: 'on',
    label: 'metrics + tracing + call logs',
    observability: '{ logLevel: info, metrics: true, callLogs: true, otlp: { endpoint: "{otlp}" } }',
  },
  // Everything on, the cache missing on every call (unique arguments; the tool opted in by override).
  {
    key: 'all-on',
    label: 'metrics + tracing + call logs + rate limit + cache miss',
    observability: '{ logLevel: info, metrics: true, callLogs: true, otlp: { endpoint: "{otlp}" } }',
    sections: [
      'cache: {}',
      'rateLimits: [{ perMinute: 1000000000 }]',
      'overrides: { "fixture:noop": { cache: true } }',
    ],
    call: (gateway: any) => gateway.scope.run('fixture:noop', { n: missSequence++ }, CALLER),
  },
  // Call policies (src/operations/{cache,limits,resilience}), observability off. Retries and the
  // circuit breaker are on by default, so `off` above includes them; `no-policies` takes them out.
  {
    key: 'no-policies',
    label: 'no retries, no circuit breaker',
    observability: '{ logLevel: info, metrics: false, callLogs: false }',
    sections: ['resilience: { retries: { maxRetries: 0 }, circuitBreaker: { enabled: false } }'],
  },
  {
    key: 'rate-limited',
    label: 'a rate limit that never refuses',
    observability: '{ logLevel: info, metrics: false, callLogs: false }',
    sections: ['rateLimits: [{ perMinute: 1000000000 }]'],
  },
  // The same read-only call uncached and answered from the cache, side by side: a trivial tool
  // (`fixture:add`) and one with real work (`plantuml:encode` of a 2 KB diagram).
  ...[
    { key: 'add', tool: 'fixture:add', args: { a: 1, b: 2 } },
    { key: 'encode', tool: 'plantuml:encode', args: { source: PLANTUML_SOURCE } },
  ].flatMap(({ key, tool, args }) =>
    [false, true].map((cached) => ({
      key: `${key}-${cached ? 'cache-hit' : 'uncached'}`,
      label: `\`${tool}\` ${cached ? 'cache hit' : 'uncached'}`,
      observability: '{ logLevel: info, metrics: false, callLogs: false }',
      sections: cached ? ['cache: {}'] : [],
      call: (gateway: any) => gateway.scope.run(tool, args, CALLER),
    })),
  ),
];
const BASELINE = 'off';

/**
 * A collector stand-in in its own process: accepts every OTLP export and drops it, counting the
 * requests and bytes (`GET /stats`), which shows that the tracing variants really export.
 */
async function startSink() {
  const code = `
    const stats = { requests: 0, bytes: 0 };
    const server = require('node:http').createServer((req, res) => {
      if (req.method === 'GET') return res.end(JSON.stringify(stats));
      stats.requests++;
      req.on('data', (chunk) => { stats.bytes += chunk.length; });
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    });
    server.listen(0, '127.0.0.1', () => console.log('port ' + server.address().port));`;
  const child = spawnTracked(process.execPath, ['-e', code]);
  const port = await new Promise((resolve, reject) => {
    child.stdout?.once('data', (chunk) => resolve(/port (\d+)/.exec(String(chunk))?.[1]));
    child.once('exit', (c) => reject(new Error(`OTLP sink exited (${c})`)));
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    stats: async () => (await fetch(`${url}/stats`)).json(),
    stop: () => stopChild(child),
  };
}

/** Builds a variant's gateway in this process, from a config file as `serve` reads one. */
async function openVariant(variant: any, { dir, otlp, logFd }: any) {
  const modules = await gatewayModules();
  if (!modules) throw new Error(`${GATEWAY_CLI} is a bundled build: no modules to load in process`);
  const { loadConfig, createLogger, Gateway } = modules;
  const configFile = path.join(dir, `${variant.key}.yaml`);
  writeFileSync(
    configFile,
    [
      `server: { name: bench-${variant.key} }`,
      `tools: { builtin: true, modules: [${JSON.stringify(FIXTURE_TOOLS)}] }`,
      'execution: { timeoutMs: 5000 }',
      `observability: ${variant.observability.replace('{otlp}', otlp)}`,
      ...(variant.sections ?? []),
    ].join('\n'),
  );
  const loaded = await loadConfig({ file: configFile, cwd: ROOT, env: process.env });
  // Lines go to /dev/null: what is measured is building and writing them, not a terminal.
  const log = createLogger({ level: loaded.config.observability.logLevel, fd: logFd });
  const gateway = await Gateway.create({ loaded, log });
  const call = variant.call ?? ((g: any) => g.scope.run('fixture:noop', {}, CALLER));
  return { ...variant, gateway, call: () => call(gateway) };
}

/**
 * Runs `count` sequential calls, pushing each latency (ms) into `sink` when given. Between calls
 * (untimed) it yields to the event loop, as a server does between requests: otherwise a chain of
 * promise continuations never lets timers run, and work the gateway defers (the span exporter's
 * batches) would never happen inside the block that caused it. Returns the CPU time the block
 * took (ms, user + system), deferred work included.
 */
async function block(variant: any, count: number, sink?: any) {
  const cpu = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    const result = await variant.call();
    const elapsed = performance.now() - start;
    if (result.isError) throw new Error(`${variant.key}: ${JSON.stringify(result)}`);
    sink?.push(elapsed);
    await new Promise((resolve) => setImmediate(resolve));
  }
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / 1000;
}

/** Runs the benchmark and returns its results (plain data). */
export async function run(options: any = {}) {
  const n = options.n ?? option('ops-n', 20000);
  const warmup = options.warmup ?? option('ops-warmup', 2000);
  const blockSize = options.block ?? option('ops-block', 1000);
  const keys = (options.variants ?? option('ops-variants', VARIANTS.map((v) => v.key).join(',')))
    .split(',')
    .filter(Boolean);
  if (!keys.includes(BASELINE)) keys.unshift(BASELINE);
  const chosen = keys.map((key: any) => {
    const variant = VARIANTS.find((v) => v.key === key);
    if (!variant) throw new Error(`--ops-variants: unknown variant ${key}`);
    return variant;
  });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'aperture-bench-ops-'));
  const logFd = openSync('/dev/null', 'w');
  const sink = await startSink();
  const list: any[] = [];
  try {
    for (const variant of chosen) list.push(await openVariant(variant, { dir, otlp: sink.url, logFd }));
    for (const variant of list) await block(variant, 1); // each answers before anything is timed
    process.stderr.write(
      `operations: ${list.length} variants × ${n} calls after ${warmup} warm-up, blocks of ${blockSize}\n`,
    );
    const {
      samples,
      roundP50,
      totals: cpuMs,
      seconds,
    } = await interleavedRounds(list, {
      n,
      warmup,
      blockSize,
      block,
      onRound: (r, rounds) => process.stderr.write(`  round ${r}/${rounds}\r`),
    });
    process.stderr.write('\n');
    const stats: Record<string, any> = Object.fromEntries(
      list.map((v) => [
        v.key,
        { ...summarize(samples[v.key]!), cpuPerCall: cpuMs[v.key]! / samples[v.key]!.length },
      ]),
    );
    const added: Record<string, any> = {};
    for (const variant of list) {
      if (variant.key === BASELINE) continue;
      added[variant.key] = {
        p50: stats[variant.key].p50 - stats[BASELINE].p50,
        p95: stats[variant.key].p95 - stats[BASELINE].p95,
        paired: median(roundP50[variant.key]!.map((v, i) => v - roundP50[BASELINE]![i]!)),
        cpuPerCall: stats[variant.key].cpuPerCall - stats[BASELINE].cpuPerCall,
      };
    }
    const labels = Object.fromEntries(list.map((v) => [v.key, v.label]));
    // Close first: closing flushes the spans still queued, so the sink has them all.
    for (const variant of list.splice(0)) await variant.gateway.close();
    return {
      config: { n, warmup, block: blockSize, variants: keys },
      exported: await sink.stats(),
      machine: machine(),
      labels,
      stats,
      added,
      seconds,
    };
  } finally {
    for (const variant of list) await variant.gateway.close();
    await sink.stop();
    closeSync(logFd);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The results as a Markdown section. */
export function render(results: any) {
  const { n, warmup, block: blockSize } = results.config;
  const us = (v: any) => ms(v * 1000, 1);
  const signedUs = (v: any) => signed(v * 1000, 1);
  const on = results.added.on;
  return [
    '## Operations middlewares (observability) per call',
    '',
    `\`gateway.scope.run('fixture:noop')\` in process, ${n} sequential calls per variant after ${warmup} ` +
      `warm-up, interleaved in blocks of ${blockSize}; times in µs.`,
    '',
    table(
      [
        'variant',
        'p50',
        'p95',
        'p99',
        'mean',
        'added at p50',
        'added at p50, paired by round',
        'CPU per call',
        'added CPU per call',
      ],
      Object.keys(results.stats).map((key) => {
        const s = results.stats[key];
        const a = results.added[key];
        return [
          results.labels[key],
          us(s.p50),
          us(s.p95),
          us(s.p99),
          us(s.mean),
          a ? signedUs(a.p50) : '—',
          a ? signedUs(a.paired) : '—',
          us(s.cpuPerCall),
          a ? signedUs(a.cpuPerCall) : '—',
        ];
      }),
    ),
    '',
    ...cacheLines(results),
    on
      ? `Target: metrics + tracing + call logs add ≤ ${TARGET_ADDED_P50_MS} ms at p50 — added ${ms(on.p50)} ms ` +
        `(paired ${ms(on.paired)} ms): **${on.p50 <= TARGET_ADDED_P50_MS ? 'met' : 'missed'}** ` +
        `(${results.seconds.toFixed(1)} s measured). The OTLP sink received ${results.exported.requests} ` +
        `export requests, ${(results.exported.bytes / 2 ** 20).toFixed(1)} MiB of JSON.`
      : '',
    '',
  ].join('\n');
}

/** One line per tool measured both uncached and from the cache: the two p50s side by side. */
function cacheLines(results: any) {
  return Object.keys(results.stats)
    .filter((key) => key.endsWith('-uncached') && results.stats[key.replace('-uncached', '-cache-hit')])
    .map((key) => {
      const uncached = results.stats[key].p50;
      const hit = results.stats[key.replace('-uncached', '-cache-hit')].p50;
      return (
        `${(results.labels?.[key] ?? key).replace(/[- ]uncached$/, '')}: p50 uncached ${ms(uncached * 1000, 1)} µs, ` +
        `cache hit ${ms(hit * 1000, 1)} µs (${(uncached / hit).toFixed(2)}×).\n`
      );
    });
}

runIfMain(import.meta.url, run, render);
