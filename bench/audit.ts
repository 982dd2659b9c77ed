#!/usr/bin/env node
/**
 * What `audit.calls: true` costs per call: one hash-chained line written per `run_tool` of the
 * no-op fixture tool, in process (`gateway.scope.run`, no transport), side by side with the same
 * gateway not recording calls, for the file trail and for the Redis trail.
 *
 * Variants, each a Gateway built in this process from its own config file:
 *   off          `state.driver: memory`, `audit.calls: false` (the baseline of `file`)
 *   file         the same, `audit: { path, calls: true }`: a line appended to a file per call
 *   redis-off    `state.driver: redis`, `audit.calls: false` (the baseline of `redis`)
 *   redis        the same, `audit.calls: true`: a line appended per call by the compare-and-append
 *                script (one round trip to a local redis-server)
 * The Redis pair is left out when `redis-server` is not installed.
 *
 * Measurement alternates blocks of `audit-block` calls between the variants, rotating the order
 * each round (machine noise falls on all alike). "Added" is p50(variant) − p50(its baseline);
 * "paired" is the median over rounds of the difference between block medians. At the end each
 * trail is verified (its chain intact and one line per measured call), so the figures are of
 * lines really written.
 *
 * Options (argv `--name value`, or env `BENCH_NAME`): audit-n (10000 measured calls per
 * variant), audit-warmup (1000), audit-block (500), json-out.
 */
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startRedisServer } from '../test/support/redis-server.js';
import {
  interleavedRounds,
  machine,
  median,
  ms,
  option,
  ROOT,
  runIfMain,
  signed,
  summarize,
  table,
} from './lib/common.js';
import { gatewayModules } from './lib/in-process-gateway.js';

const FIXTURE_TOOLS = path.join(ROOT, 'test', 'fixtures', 'tools', '*.ts');
const CALLER = { caller: { identity: 'bench' } };

/** Builds a variant's gateway in this process from its config sections. */
async function openVariant(key: string, label: string, sections: string[], dir: string, logFd: number) {
  const modules = await gatewayModules();
  if (!modules) throw new Error('a bundled build: no modules to load in process');
  const { loadConfig, createLogger, Gateway } = modules;
  const configFile = path.join(dir, `${key}.yaml`);
  writeFileSync(
    configFile,
    [
      `server: { name: bench-audit-${key} }`,
      `tools: { builtin: true, modules: [${JSON.stringify(FIXTURE_TOOLS)}] }`,
      'execution: { timeoutMs: 5000 }',
      'observability: { logLevel: info, metrics: false, callLogs: false }',
      ...sections,
    ].join('\n'),
  );
  const loaded = await loadConfig({ file: configFile, cwd: ROOT, env: process.env });
  const log = createLogger({ level: 'warn', fd: logFd });
  const gateway = await Gateway.create({ loaded, log });
  return { key, label, gateway, call: () => gateway.scope.run('fixture:noop', {}, CALLER) };
}

type Variant = Awaited<ReturnType<typeof openVariant>>;

async function block(variant: Variant, count: number, sink?: number[]) {
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    const result = await variant.call();
    const elapsed = performance.now() - start;
    if (result.isError) throw new Error(`${variant.key}: ${JSON.stringify(result)}`);
    sink?.push(elapsed);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Runs the benchmark and returns its results (plain data). */
export async function run(options: { n?: number; warmup?: number; block?: number } = {}) {
  const n = options.n ?? option('audit-n', 10000);
  const warmup = options.warmup ?? option('audit-warmup', 1000);
  const blockSize = options.block ?? option('audit-block', 500);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'aperture-bench-audit-'));
  const logFd = openSync('/dev/null', 'w');
  const redis = await startRedisServer();
  const list: Variant[] = [];
  const file = path.join(dir, 'audit.jsonl');
  try {
    list.push(await openVariant('off', 'audit.calls off', ['state: { driver: memory }'], dir, logFd));
    list.push(
      await openVariant(
        'file',
        'audit.calls, file',
        ['state: { driver: memory }', `audit: { path: ${JSON.stringify(file)}, calls: true }`],
        dir,
        logFd,
      ),
    );
    if (redis) {
      const state = `state: { driver: redis, redis: { url: ${JSON.stringify(redis.url)}, prefix: "bench:" } }`;
      list.push(await openVariant('redis-off', 'state.driver redis, audit.calls off', [state], dir, logFd));
      list.push(
        await openVariant('redis', 'audit.calls, Redis', [state, 'audit: { calls: true }'], dir, logFd),
      );
    }
    for (const variant of list) await block(variant, 1);
    process.stderr.write(
      `audit: ${list.length} variants × ${n} calls after ${warmup} warm-up, blocks of ${blockSize}\n`,
    );
    const { samples, roundP50, seconds } = await interleavedRounds(list, {
      n,
      warmup,
      blockSize,
      block,
      onRound: (r, rounds) => process.stderr.write(`  round ${r}/${rounds}\r`),
    });
    process.stderr.write('\n');
    const stats = Object.fromEntries(list.map((v) => [v.key, summarize(samples[v.key] ?? [])]));
    const baselineOf: Record<string, string> = { file: 'off', redis: 'redis-off' };
    const added: Record<string, { p50: number; paired: number; baseline: string }> = {};
    for (const [key, baseline] of Object.entries(baselineOf)) {
      if (!stats[key] || !stats[baseline]) continue;
      added[key] = {
        baseline,
        p50: (stats[key]?.p50 ?? 0) - (stats[baseline]?.p50 ?? 0),
        paired: median((roundP50[key] ?? []).map((v, i) => v - (roundP50[baseline]?.[i] ?? 0))),
      };
    }
    // The lines are really there and chained: verify each trail with the product's own checks.
    const verified: Record<string, unknown> = {};
    const { verifyAuditFile } = await import('../src/operations/audit/file-audit-trail.js');
    verified.file = await verifyAuditFile(file);
    if (redis) {
      const { createRedisConnection } = await import('../src/operations/state/redis-connection.js');
      const { RedisAuditTrail } = await import('../src/operations/audit/redis-audit-trail.js');
      const { silentLogger } = await import('../src/foundation/ports/logger.js');
      const connection = createRedisConnection({ url: redis.url, prefix: 'bench:' }, silentLogger);
      await connection.whenUp(5000);
      verified.redis = await new RedisAuditTrail({ connection }).verify();
      await connection.close();
    }
    for (const variant of list.splice(0)) await variant.gateway.close();
    return {
      config: { n, warmup, block: blockSize },
      machine: machine(),
      labels: Object.fromEntries(list.map((v) => [v.key, v.label])),
      stats,
      added,
      verified,
      seconds,
    };
  } finally {
    for (const variant of list) await variant.gateway.close();
    await redis?.[Symbol.asyncDispose]();
    closeSync(logFd);
    rmSync(dir, { recursive: true, force: true });
  }
}

const LABELS: Record<string, string> = {
  off: 'audit.calls off (memory state)',
  file: 'audit.calls, file trail',
  'redis-off': 'audit.calls off (Redis state)',
  redis: 'audit.calls, Redis trail',
};

/** The results as a Markdown section. */
export function render(results: Awaited<ReturnType<typeof run>>) {
  const { n, warmup, block: blockSize } = results.config;
  const us = (v: number) => ms(v * 1000, 1);
  const verified = Object.entries(results.verified as Record<string, { ok: boolean; lines: number }>)
    .map(([key, v]) => `${key}: ${v.ok ? 'chain intact' : 'BROKEN'}, ${v.lines} lines`)
    .join('; ');
  return [
    '## Audit trail: a line per call (`audit.calls: true`)',
    '',
    `\`gateway.scope.run('fixture:noop')\` in process, ${n} sequential calls per variant after ${warmup} ` +
      `warm-up, interleaved in blocks of ${blockSize}; times in µs.`,
    '',
    table(
      ['variant', 'p50', 'p95', 'p99', 'added at p50', 'added at p50, paired by round', 'p50 ratio'],
      Object.keys(results.stats).map((key) => {
        const s = results.stats[key] as { p50: number; p95: number; p99: number };
        const a = results.added[key];
        const base = a ? (results.stats[a.baseline] as { p50: number }) : undefined;
        return [
          LABELS[key] ?? key,
          us(s.p50),
          us(s.p95),
          us(s.p99),
          a ? signed(a.p50 * 1000, 1) : '—',
          a ? signed(a.paired * 1000, 1) : '—',
          a && base ? `${(s.p50 / base.p50).toFixed(2)}×` : '—',
        ];
      }),
    ),
    '',
    `Trails verified after the run (${verified}).`,
    '',
  ].join('\n');
}

runIfMain(import.meta.url, run, render);
