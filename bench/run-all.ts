#!/usr/bin/env node
/**
 * Runs every benchmark, each in its own Node process (so that one's JIT state, heap and children
 * cannot colour another's figures), and prints one Markdown report on stdout: the machine, each
 * benchmark's tables, and a summary of the targets.
 *
 *   npm run bench                              all nine (build first: npm run build)
 *   npx tsx bench/run-all.ts --only search       a subset: run-tool, search, startup, code-mode, rest,
 *                                              downstream, operations, sessions, scale-out (comma-separated)
 *   npx tsx bench/run-all.ts --out report.md     also write the report to a file
 *
 * Other options (`--n 500`, `--runs 5`, …) are passed on to every benchmark; see each script.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { GATEWAY_CLI, machine, main, ms, option, signed, spawnTracked, table } from './lib/common.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));

const BENCHMARKS = [
  { key: 'run-tool', file: 'run-tool-latency.ts', nodeArgs: [] },
  // --expose-gc lets the search benchmark measure the heap its indexes take.
  { key: 'search', file: 'search-latency.ts', nodeArgs: ['--expose-gc'] },
  { key: 'startup', file: 'startup.ts', nodeArgs: [] },
  { key: 'code-mode', file: 'code-mode.ts', nodeArgs: [] },
  { key: 'rest', file: 'rest-throughput.ts', nodeArgs: [] },
  { key: 'downstream', file: 'downstream/downstream.ts', nodeArgs: [] },
  { key: 'operations', file: 'operations.ts', nodeArgs: [] },
  { key: 'sessions', file: 'session-memory.ts', nodeArgs: [] },
  // Needs redis-server and nginx; without them it reports itself skipped.
  { key: 'scale-out', file: 'scale-out.ts', nodeArgs: [] },
];

/** Runs one benchmark script as a child; resolves with its JSON results. */
async function runBenchmark(bench: any, dir: string, passArgs: any) {
  const jsonOut = path.join(dir, `${bench.key}.json`);
  const child = spawnTracked(
    process.execPath,
    // Each script is TypeScript: tsx's loader runs it, as `npm run bench` runs this one.
    ['--import', 'tsx', ...bench.nodeArgs, path.join(HERE, bench.file), ...passArgs, '--json-out', jsonOut],
    { stdio: ['ignore', 'ignore', 'inherit'] },
    // SIGTERM, not SIGKILL: the benchmark then ends the servers it started before it exits.
    'SIGTERM',
  );
  const started = performance.now();
  const code = await new Promise((resolve) => child.once('exit', (c, signal) => resolve(c ?? signal)));
  if (code !== 0) throw new Error(`${bench.file} failed (${code})`);
  process.stderr.write(`${bench.file}: done in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  return JSON.parse(readFileSync(jsonOut, 'utf8'));
}

/** One row per target: what, figure, target, met. */
function targetRows(modules: any, results: any) {
  const rows: any[] = [];
  const verdict = (ok: boolean) => (ok ? 'met' : '**missed**');
  const runTool = results['run-tool'];
  if (runTool) {
    const { TARGET_ADDED_P50_MS } = modules['run-tool'];
    for (const [transport, r] of Object.entries<any>(runTool.transports)) {
      for (const key of ['runTool', 'flat']) {
        const added = r.overhead[key].addedP50;
        rows.push([
          `${key === 'runTool' ? '`run_tool`' : 'flat tool'} over ${transport}: added at p50 vs bare SDK server`,
          `${signed(added)} ms (${r.overhead[key].ratioP50.toFixed(2)}×; paired by round ${signed(r.overhead[key].pairedAddedP50)} ms)`,
          `≤ ${TARGET_ADDED_P50_MS} ms`,
          verdict(added <= TARGET_ADDED_P50_MS),
        ]);
      }
    }
  }
  const search = results.search;
  if (search) {
    const { TARGET_BM25_P50_MS, TARGET_BUILD_MS } = modules.search;
    const largest = Math.max(...Object.keys(search.sizes).map(Number));
    const s = search.sizes[largest].strategies;
    rows.push([
      `BM25 query p50 at ${largest.toLocaleString('en-US')} tools`,
      `${ms(s.bm25.query.p50)} ms`,
      `≤ ${TARGET_BM25_P50_MS} ms`,
      verdict(s.bm25.query.p50 <= TARGET_BM25_P50_MS),
    ]);
    for (const [strategy, r] of Object.entries<any>(s)) {
      rows.push([
        `${strategy} index build at ${largest.toLocaleString('en-US')} tools (cold / warm)`,
        `${ms(r.buildColdMs, 0)} / ${ms(r.buildWarmMs, 0)} ms`,
        `≤ ${TARGET_BUILD_MS} ms`,
        verdict(Math.max(r.buildColdMs, r.buildWarmMs) <= TARGET_BUILD_MS),
      ]);
    }
  }
  const startup = results.startup;
  if (startup) {
    const { TARGET_READY_MS } = modules.startup;
    const ready = startup.startup.gateway.ready.p50;
    rows.push([
      'gateway start-up to `/readyz` 200 (p50)',
      `${ms(ready, 0)} ms (baseline server ${ms(startup.startup.baseline.ready.p50, 0)} ms, bare node ${ms(startup.startup.node.exit.p50, 0)} ms)`,
      `≤ ${TARGET_READY_MS} ms`,
      verdict(ready <= TARGET_READY_MS),
    ]);
    const stdio = startup.startup['gateway-stdio']?.firstList;
    const bare = startup.startup['baseline-stdio']?.firstList;
    if (stdio && bare) {
      const { TARGET_FIRST_LIST_RATIO } = modules.startup;
      rows.push([
        'stdio: spawn to the first `tools/list` answered, vs a bare SDK server (p50)',
        `${(stdio.p50 / bare.p50).toFixed(2)}× (${ms(stdio.p50, 0)} vs ${ms(bare.p50, 0)} ms)`,
        `≤ ${TARGET_FIRST_LIST_RATIO}×`,
        verdict(stdio.p50 / bare.p50 <= TARGET_FIRST_LIST_RATIO),
      ]);
    }
  }
  const code = results['code-mode'];
  if (code) {
    const { TARGET_EXEC_P50_MS } = modules['code-mode'];
    for (const [transport, r] of Object.entries<any>(code.latency ?? {})) {
      rows.push([
        `\`execute_code\` \`return 1\` over ${transport}, warm pool (p50)`,
        `${ms(r.stats.exec.p50, 2)} ms (\`run_tool\` in the same run ${ms(r.stats.runTool.p50, 2)} ms)`,
        `≤ ${TARGET_EXEC_P50_MS} ms`,
        verdict(r.stats.exec.p50 <= TARGET_EXEC_P50_MS),
      ]);
    }
    for (const [transport, r] of Object.entries<any>(code.fanout ?? {})) {
      rows.push([
        `one program with ${r.calls} tool calls vs ${r.calls} \`run_tool\` round trips over ${transport} (p50 wall time)`,
        `program ${ms(r.stats.program.p50, 1)} ms, round trips ${ms(r.stats.sequential.p50, 1)} ms: speed-up ${r.speedup.program.p50.toFixed(2)}×`,
        'figure',
        '—',
      ]);
    }
    for (const r of Object.values<any>(code.throughput ?? {})) {
      rows.push([
        `code mode, ${code.config.throughput.concurrency} concurrent executions, ${r.label}`,
        `${r.perSecond.toFixed(1)} executions/s, p50 ${ms(r.latency.p50, 1)} ms, p95 ${ms(r.latency.p95, 1)} ms`,
        'figure',
        '—',
      ]);
    }
  }
  const rest = results.rest;
  if (rest) {
    const { TARGET_REST_RPS } = modules.rest;
    const { rest: r, mcp: m } = rest.summary;
    rows.push(
      [
        `REST vs MCP p50 under ${rest.config.connections} connections`,
        `${r.p50.toFixed(2)} vs ${m.p50.toFixed(2)} ms`,
        'REST ≤ MCP',
        verdict(r.p50 <= m.p50),
      ],
      [
        `REST requests/s under ${rest.config.connections} connections`,
        `${Math.round(r.requestsPerSecond)} (MCP ${Math.round(m.requestsPerSecond)})`,
        `≥ ${TARGET_REST_RPS}`,
        verdict(r.requestsPerSecond >= TARGET_REST_RPS),
      ],
    );
  }
  const downstream = results.downstream;
  if (downstream) {
    const { TARGET_ADDED_STDIO_MS, TARGET_HTTP_RATIO } = modules.downstream;
    const latency = downstream.latency;
    // The reference relays and floors are read against the same baselines, but have no target.
    const subject = (key: string) => latency.variants[key].reference !== true;
    for (const [key, a] of Object.entries<any>(latency?.addedStdio ?? {})) {
      if (!subject(key)) continue;
      rows.push([
        `downstream \`echo\`, ${latency.variants[key].label}: added at p50 vs direct stdio`,
        `${signed(a.p50)} ms (paired by round ${signed(a.paired)} ms)`,
        `≤ ${TARGET_ADDED_STDIO_MS} ms`,
        verdict(a.p50 <= TARGET_ADDED_STDIO_MS),
      ]);
    }
    for (const [key, h] of Object.entries<any>(latency?.httpRatio ?? {})) {
      if (!subject(key)) continue;
      const peer = latency.variants[h.fastestPeer];
      rows.push([
        `downstream \`echo\`, ${latency.variants[key].label}: p50 vs the faster of mcp-proxy, supergateway`,
        `${h.p50.toFixed(2)}× (${ms(latency.variants[key].stats.p50, 2)} vs ${ms(peer.stats.p50, 2)} ms; paired ${h.paired.toFixed(2)}×)`,
        `≤ ${TARGET_HTTP_RATIO}×`,
        verdict(h.p50 <= TARGET_HTTP_RATIO),
      ]);
    }
    const vs = downstream.load?.vsSupergateway;
    if (vs) {
      const { TARGET_LOAD_THROUGHPUT_RATIO, TARGET_LOAD_P95_RATIO } = modules.downstream;
      rows.push(
        [
          `downstream: ${downstream.config.load.clients} sessions × ${downstream.config.load.calls} calls, Aperture's throughput vs supergateway (stateful)`,
          `${vs.throughput.toFixed(2)}×`,
          `≥ ${TARGET_LOAD_THROUGHPUT_RATIO}×`,
          verdict(vs.throughput >= TARGET_LOAD_THROUGHPUT_RATIO),
        ],
        [
          'the same load: p95 vs supergateway',
          `${vs.p95.toFixed(2)}×`,
          `≤ ${TARGET_LOAD_P95_RATIO}×`,
          verdict(vs.p95 <= TARGET_LOAD_P95_RATIO),
        ],
      );
    }
    for (const r of downstream.load?.rounds?.aperture ?? []) {
      rows.push([
        `downstream: ${downstream.config.load.clients} concurrent sessions × ${downstream.config.load.calls} calls through Aperture, lost or mixed up`,
        `${r.lost + r.mixed} (${Math.round(r.perSecond)} calls/s, p50 ${ms(r.latency.p50, 1)} ms, p99 ${ms(r.latency.p99, 1)} ms)`,
        '0',
        verdict(r.lost + r.mixed === 0),
      ]);
    }
    const many = downstream.memory?.many;
    if (many) {
      rows.push([
        `gateway RSS with ${many.servers} downstream servers, ${many.sourceTools.toLocaleString('en-US')} tools`,
        `${many.rssMiB.settled.gateway.toFixed(1)} MiB (children ${many.rssMiB.settled.children.toFixed(0)} MiB); ready in ${ms(many.readyMs, 0)} ms`,
        'figure',
        '—',
      ]);
    }
  }
  const sessions = results.sessions;
  if (sessions) {
    const { TARGET_KIB_PER_SESSION } = modules.sessions;
    rows.push(
      [
        `RSS per idle 2025-era session (${sessions.config.sessions.toLocaleString('en-US')} sessions, after a full GC)`,
        `${sessions.kibPerSession.toFixed(1)} KiB`,
        `≤ ${TARGET_KIB_PER_SESSION} KiB`,
        verdict(sessions.kibPerSession <= TARGET_KIB_PER_SESSION),
      ],
      [
        'RSS left per session once they expired (after a full GC)',
        `${sessions.kibLeftPerSession.toFixed(1)} KiB`,
        'figure',
        '—',
      ],
    );
  }
  const operations = results.operations;
  if (operations) {
    const { TARGET_ADDED_P50_MS } = modules.operations;
    for (const [key, a] of Object.entries<any>(operations.added)) {
      const isTarget = key === 'on';
      rows.push([
        `\`run_tool\` in process, ${operations.labels[key]}: added at p50 vs observability off`,
        `${signed(a.p50)} ms (paired by round ${signed(a.paired)} ms; CPU per call ${signed(a.cpuPerCall)} ms)`,
        isTarget ? `≤ ${TARGET_ADDED_P50_MS} ms` : 'figure',
        isTarget ? verdict(a.p50 <= TARGET_ADDED_P50_MS) : '—',
      ]);
    }
  }
  const scaleOut = results['scale-out'];
  if (scaleOut && !scaleOut.skipped) {
    const { TARGET_THROUGHPUT_RATIO, TARGET_CORES, summary } = modules['scale-out'];
    const { sessions: scaleSessions, calls: scaleCalls, replicas } = scaleOut.config;
    const s = summary(scaleOut);
    const cores = scaleOut.machine.nproc;
    rows.push(
      [
        `scale-out: ${scaleSessions} sessions × ${scaleCalls} calls through nginx, 1 and ${replicas} replicas on Redis, lost`,
        String(scaleOut.lost),
        '0',
        verdict(scaleOut.lost === 0),
      ],
      [
        `scale-out: ${replicas} replicas / 1 replica, throughput (p50, p95 ratios)`,
        `${s.throughputRatio.toFixed(2)}× (p50 ${s.p50Ratio.toFixed(2)}×, p95 ${s.p95Ratio.toFixed(2)}×)`,
        `≥ ${TARGET_THROUGHPUT_RATIO}× with ${TARGET_CORES}+ cores`,
        cores >= TARGET_CORES ? verdict(s.throughputRatio >= TARGET_THROUGHPUT_RATIO) : `— (${cores} cores)`,
      ],
    );
  }
  return rows;
}

main(async () => {
  if (!existsSync(GATEWAY_CLI)) throw new Error(`${GATEWAY_CLI} is missing: run npm run build first`);
  const only = option('only', BENCHMARKS.map((b) => b.key).join(',')).split(',');
  const outFile = option('out', '');
  // Pass every option on except run-all's own.
  const passArgs: any[] = [];
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--only' || argv[i] === '--out') i++;
    else if (!argv[i]!.startsWith('--only=') && !argv[i]!.startsWith('--out=')) passArgs.push(argv[i]!);
  }

  const dir = mkdtempSync(path.join(os.tmpdir(), 'aperture-bench-results-'));
  const results: Record<string, any> = {};
  const modules: Record<string, any> = {};
  try {
    for (const bench of BENCHMARKS.filter((b) => only.includes(b.key))) {
      process.stderr.write(`\n== ${bench.file}\n`);
      modules[bench.key] = await import(pathToFileURL(path.join(HERE, bench.file)).href);
      results[bench.key] = await runBenchmark(bench, dir, passArgs);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const m = machine();
  const report = [
    '# Aperture benchmarks',
    '',
    `${m.date} — ${m.nproc} CPUs (${m.cpu}), ${m.memGiB} GiB, ${m.platform}, Node ${m.node}, ` +
      `gateway build at ${m.git}; load average at the end ${m.loadavg}.`,
    '',
    '## Targets',
    '',
    table(['what', 'measured', 'target', ''], targetRows(modules, results)),
    '',
    ...Object.entries<any>(results).map(([key, r]) => modules[key].render(r)),
  ].join('\n');
  process.stdout.write(`${report}\n`);
  if (outFile) writeFileSync(outFile, `${report}\n`);
});
