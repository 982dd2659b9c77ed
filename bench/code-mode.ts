#!/usr/bin/env node
/**
 * Code mode (`execute_code`) through the official MCP SDK client, against the gateway's own
 * `run_tool` measured side by side in the same run. Four parts:
 *
 *   latency     `execute_code` returning a constant (`return 1`) vs `run_tool` → `fixture:noop`,
 *               sequential calls, warm pool, interleaved blocks; stdio and Streamable HTTP.
 *   fanout      one program making 20 sequential `tools.call('fixture:noop')` (and the same 20 in
 *               a `Promise.all`) vs 20 sequential `run_tool` round trips from the client.
 *   throughput  8 concurrent clients (8 HTTP sessions), each running a small program (a loop
 *               summing 1e5 numbers plus one tool call) back to back; pool size 2 (the default)
 *               vs 4, and the `process` runtime, in alternating rounds.
 *   memory      gateway RSS idle, with the pool started, and while 2 programs hold ~40 MiB each;
 *               for the `process` runtime also the RSS of each runner process.
 *
 * Gateways run `serve` on configs written to a temp dir: the fixture config
 * (test/fixtures/gateway.yaml) with its tool module by absolute path and the `codeMode` section
 * under test.
 *
 * Options (argv `--name value`, or env `BENCH_NAME`): parts (`latency,fanout,throughput,memory`),
 * transports (`stdio,http`), latency-n (600 per target), latency-warmup (100), latency-block (100),
 * fanout-reps (100), fanout-warmup (10), fanout-calls (20), concurrency (8), throughput-seconds
 * (5 per round), throughput-rounds (2), throughput-warmup (1 s), throughput-alone (6),
 * throughput-configs (`pool2,pool4,process`), memory-configs (`pool2,process`; add `pool4` for the
 * marginal cost of a worker), hold-mb (40), release-wait-ms (10000), json-out (write the results
 * as JSON). About 2.5 minutes with the defaults on a 2-vCPU machine (each part under 1 minute).
 * Prints a Markdown section on stdout, progress on stderr.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  FIXTURE_CONFIG,
  GATEWAY_CLI,
  machine,
  median,
  ms,
  option,
  rssMiB,
  runIfMain,
  summarize,
  table,
} from './lib/common.js';
import { connectHttp, connectStdio, startHttpServer } from './lib/mcp-clients.js';
import { childPids, cpuSeconds } from './lib/proc.js';

/** `execute_code` of a constant, p50 end to end, warm pool (issue target). */
export const TARGET_EXEC_P50_MS = 15;

const FIXTURE_MODULES = path.join(path.dirname(FIXTURE_CONFIG), 'tools', '*.ts');

/** The code-mode configs compared; every other setting is the fixture's. */
const CODE_MODE_CONFIGS: Record<string, any> = {
  pool2: { label: 'QuickJS workers, `poolSize: 2` (default)', codeMode: { runtime: 'quickjs', poolSize: 2 } },
  pool4: { label: 'QuickJS workers, `poolSize: 4`', codeMode: { runtime: 'quickjs', poolSize: 4 } },
  process: { label: '`runtime: process`, `poolSize: 2`', codeMode: { runtime: 'process', poolSize: 2 } },
};

const PROGRAMS = {
  constant: 'return 1',
  fanout: (calls: any) =>
    `for (let i = 0; i < ${calls}; i++) await tools.call('fixture:noop', {});\nreturn ${calls};`,
  fanoutParallel: (calls: any) =>
    `const calls = [];\nfor (let i = 0; i < ${calls}; i++) calls.push(tools.call('fixture:noop', {}));\n` +
    `return (await Promise.all(calls)).length;`,
  small:
    "let s = 0;\nfor (let i = 0; i < 1e5; i++) s += i;\nawait tools.call('fixture:noop', {});\nreturn s;",
  /** Holds `mb` MiB (a filled typed array) across a tool call that waits `waitMs`. */
  hold: (mb: any, waitMs: any) =>
    `const buf = new Uint8Array(${mb} * 1024 * 1024);\nbuf.fill(1);\n` +
    `await tools.call('fixture:wait', { ms: ${waitMs} });\nreturn buf[buf.length - 1];`,
};

// ---------------------------------------------------------------------------------------------
// Gateways and calls

/** Writes the fixture config with `codeMode` into `dir`; returns its path. */
function writeConfig(dir: string, name: string, codeMode: any) {
  const file = path.join(dir, `${name}.yaml`);
  // YAML is a superset of JSON. Same settings as test/fixtures/gateway.yaml, modules by absolute path.
  const config = {
    server: { name: 'aperture-bench' },
    tools: { builtin: true, modules: [FIXTURE_MODULES] },
    exposure: { mode: 'auto', budgetTokens: 100000 },
    execution: { timeoutMs: 5000 },
    http: { maxBodyBytes: 65536 },
    observability: { logLevel: 'warn' },
    codeMode,
  };
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
  return file;
}

const gatewayArgs = (config: any, transport: any) => [
  GATEWAY_CLI,
  'serve',
  '--config',
  config,
  ...(transport === 'stdio' ? ['--stdio'] : ['--http', '--port', '0']),
];

async function startGateway(config: any) {
  return startHttpServer(gatewayArgs(config, 'http'));
}

/** A client connected to a gateway (one session over HTTP, its own process over stdio). */
async function connect(label: string, transport: any, config: any, server: any) {
  const connection =
    transport === 'stdio'
      ? await connectStdio(label, gatewayArgs(config, 'stdio'))
      : await connectHttp(label, server);
  // A real client lists tools first (the SDK client also caches output validators from it).
  const { tools } = await connection.client.listTools();
  if (!tools.some((t) => t.name === 'execute_code') || !tools.some((t) => t.name === 'fixture__noop')) {
    await connection.close();
    throw new Error(`${label}: the gateway lacks execute_code or the fixture tools`);
  }
  return connection;
}

/** Runs a program with `execute_code`; returns its structuredContent or throws. */
async function executeCode(client: any, code: any, extra: any = {}) {
  const result = await client.callTool({ name: 'execute_code', arguments: { code, ...extra } });
  if (result.isError)
    throw new Error(`execute_code failed: ${JSON.stringify(result.structuredContent ?? result)}`);
  return result.structuredContent;
}

async function runTool(client: any) {
  const result = await client.callTool({
    name: 'run_tool',
    arguments: { tool_id: 'fixture:noop', args: {} },
  });
  if (result.isError) throw new Error(`run_tool failed: ${JSON.stringify(result)}`);
  return result;
}

/**
 * Measures targets in interleaved blocks: each round runs one block of `blockSize` repetitions
 * per target, in an order that rotates from round to round. `target.once(client)` is one
 * repetition; it may return `{ serverMs }` (the gateway's own `durationMs`). Returns per target the
 * samples (ms), server-side samples, and the median of each round's block.
 */
async function interleaved(targets: any, { n, warmup, blockSize, label }: any) {
  const out = Object.fromEntries(
    targets.map((t: any) => [t.key, { samples: [], server: [], inner: [], roundP50: [] }]),
  );
  for (let done = 0; done < warmup; done += blockSize) {
    for (const t of targets) {
      for (let i = 0; i < Math.min(blockSize, warmup - done); i++) await t.once(t.client);
    }
  }
  const rounds = Math.ceil(n / blockSize);
  for (let r = 0; r < rounds; r++) {
    const count = Math.min(blockSize, n - r * blockSize);
    const order = targets.map((_: any, i: any) => targets[(i + r) % targets.length]);
    for (const t of order) {
      const block: any[] = [];
      for (let i = 0; i < count; i++) {
        const start = performance.now();
        const info = await t.once(t.client);
        block.push(performance.now() - start);
        if (info?.serverMs !== undefined) out[t.key].server.push(info.serverMs);
        if (info?.innerMs) out[t.key].inner.push(...info.innerMs);
      }
      out[t.key].samples.push(...block);
      out[t.key].roundP50.push(median(block));
    }
    process.stderr.write(`  ${label}: round ${r + 1}/${rounds}\r`);
  }
  process.stderr.write('\n');
  return out;
}

/**
 * Opens several connections (or servers) at once; every one that opened is pushed to `sink` (so
 * that it is closed later) even when another fails. Resolves with them in order.
 */
async function connectAll(openers: any, sink: any) {
  const settled: PromiseSettledResult<any>[] = await Promise.allSettled(openers.map((open: any) => open()));
  for (const s of settled) if (s.status === 'fulfilled') sink.push(s.value);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<any>).value);
}

async function closeAll(connections: any, servers: any) {
  for (const c of connections) await c?.close();
  for (const s of servers) await s?.stop();
}

// ---------------------------------------------------------------------------------------------
// 1. Latency of a constant program vs run_tool

async function measureLatency(transport: any, config: any, opts: any) {
  const servers: any[] = [];
  const connections: any = [];
  try {
    const server = transport === 'http' ? await startGateway(config) : undefined;
    if (server) servers.push(server);
    const targets: any[] = [
      {
        key: 'exec',
        label: '`execute_code` `return 1`',
        once: async (client: any) => {
          const r = await executeCode(client, PROGRAMS.constant);
          if (r.value !== 1) throw new Error(`execute_code returned ${JSON.stringify(r)}`);
          return { serverMs: r.durationMs };
        },
      },
      {
        key: 'runTool',
        label: '`run_tool` → `fixture:noop` (baseline)',
        once: (client: any) => runTool(client),
      },
    ];
    const opened = await connectAll(
      targets.map((t) => () => connect(`latency-${t.key}`, transport, config, server)),
      connections,
    );
    targets.forEach((t, i) => {
      t.client = opened[i].client;
    });
    const started = performance.now();
    const raw = await interleaved(targets, {
      n: opts.n,
      warmup: opts.warmup,
      blockSize: opts.blockSize,
      label: `latency ${transport}`,
    });
    const stats: Record<string, any> = Object.fromEntries(
      targets.map((t) => [t.key, summarize(raw[t.key].samples)]),
    );
    const paired = raw.exec.roundP50.map((v: any, i: any) => v - raw.runTool.roundP50[i]);
    return {
      labels: Object.fromEntries(targets.map((t) => [t.key, t.label])),
      stats,
      execServerMs: summarize(raw.exec.server),
      addedP50: stats.exec.p50 - stats.runTool.p50,
      pairedAddedP50: median(paired),
      ratioP50: stats.exec.p50 / stats.runTool.p50,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await closeAll(connections, servers);
  }
}

// ---------------------------------------------------------------------------------------------
// 2. One program with 20 tool calls vs 20 run_tool round trips

async function measureFanout(transport: any, config: any, opts: any) {
  const servers: any[] = [];
  const connections: any = [];
  const { calls } = opts;
  try {
    const server = transport === 'http' ? await startGateway(config) : undefined;
    if (server) servers.push(server);
    const program = (code: any) => async (client: any) => {
      const r = await executeCode(client, code);
      if (r.value !== calls || r.toolCalls.length !== calls || !r.toolCalls.every((c: any) => c.ok)) {
        throw new Error(`the fan-out program returned ${JSON.stringify(r).slice(0, 300)}`);
      }
      return { serverMs: r.durationMs, innerMs: r.toolCalls.map((c: any) => c.ms) };
    };
    const targets: any[] = [
      {
        key: 'program',
        label: `one \`execute_code\`, ${calls} sequential \`tools.call\``,
        once: program(PROGRAMS.fanout(calls)),
      },
      {
        key: 'parallel',
        label: `one \`execute_code\`, ${calls} \`tools.call\` in \`Promise.all\``,
        once: program(PROGRAMS.fanoutParallel(calls)),
      },
      {
        key: 'sequential',
        label: `${calls} sequential \`run_tool\` round trips`,
        once: async (client: any) => {
          for (let i = 0; i < calls; i++) await runTool(client);
        },
      },
    ];
    const opened = await connectAll(
      targets.map((t) => () => connect(`fanout-${t.key}`, transport, config, server)),
      connections,
    );
    targets.forEach((t, i) => {
      t.client = opened[i].client;
    });
    const raw = await interleaved(targets, {
      n: opts.reps,
      warmup: opts.warmup,
      blockSize: opts.blockSize,
      label: `fan-out ${transport}`,
    });
    const stats: Record<string, any> = Object.fromEntries(
      targets.map((t) => [t.key, summarize(raw[t.key].samples)]),
    );
    const total = (key: any) => raw[key].samples.reduce((a: any, b: any) => a + b, 0);
    const pairedRatio = (key: any) =>
      median(raw.sequential.roundP50.map((v: any, i: any) => v / raw[key].roundP50[i]));
    return {
      calls,
      labels: Object.fromEntries(targets.map((t) => [t.key, t.label])),
      stats,
      serverMs: { program: summarize(raw.program.server), parallel: summarize(raw.parallel.server) },
      // Each tools.call as the gateway timed it (scope.run on the host, from the bridge's view).
      innerCallMs: { program: summarize(raw.program.inner), parallel: summarize(raw.parallel.inner) },
      // sequential ÷ program: how many times faster one program is than the round trips.
      speedup: {
        program: {
          p50: stats.sequential.p50 / stats.program.p50,
          total: total('sequential') / total('program'),
          paired: pairedRatio('program'),
        },
        parallel: {
          p50: stats.sequential.p50 / stats.parallel.p50,
          total: total('sequential') / total('parallel'),
          paired: pairedRatio('parallel'),
        },
      },
    };
  } finally {
    await closeAll(connections, servers);
  }
}

// ---------------------------------------------------------------------------------------------
// 3. Throughput under 8 concurrent executions

/** Each client runs the program back to back until `seconds` have passed. */
async function closedLoop(clients: any, seconds: number, sink?: any) {
  const end = performance.now() + seconds * 1000;
  let errors = 0;
  let firstError: string | undefined;
  await Promise.all(
    clients.map(async (client: any) => {
      while (performance.now() < end) {
        const start = performance.now();
        try {
          const r = await executeCode(client, PROGRAMS.small);
          if (r.value !== 4999950000) throw new Error(`returned ${JSON.stringify(r.value)}`);
          sink?.latencies.push(performance.now() - start);
          sink?.server.push(r.durationMs);
        } catch (error: any) {
          errors++;
          firstError ??= String(error?.message ?? error).slice(0, 300);
        }
      }
    }),
  );
  return { errors, firstError };
}

async function measureThroughput(configs: any, opts: any) {
  const subjects: any = [];
  const servers: any = [];
  try {
    await connectAll(
      configs.map(
        ([, file]: any) =>
          () =>
            startGateway(file),
      ),
      servers,
    );
    for (const [i, [key, file]] of configs.entries()) {
      const server = servers[i];
      const subject = { key, server, connections: [], latencies: [], inSandbox: [], rounds: [], errors: 0 };
      subjects.push(subject);
      await connectAll(
        Array.from(
          { length: opts.concurrency },
          (_, j) => () => connect(`throughput-${key}-${j}`, 'http', file, server),
        ),
        subject.connections,
      );
    }
    const clients = (s: any) => s.connections.map((c: any) => c.client);
    for (const s of subjects) {
      process.stderr.write(`  throughput ${s.key}: warm-up ${opts.warmup} s\n`);
      const warm = await closedLoop(clients(s), opts.warmup);
      if (warm.errors > 0) throw new Error(`${s.key}: ${warm.errors} errors in warm-up: ${warm.firstError}`);
      // The same program alone (one client, sequential): what one execution costs without queueing.
      const alone: { latencies: number[]; server: number[] } = { latencies: [], server: [] };
      for (let i = 0; i < opts.alone; i++) {
        const start = performance.now();
        const r = await executeCode(clients(s)[0], PROGRAMS.small);
        alone.latencies.push(performance.now() - start);
        alone.server.push(r.durationMs);
      }
      s.alone = { latency: summarize(alone.latencies), serverMs: summarize(alone.server) };
    }
    for (let r = 0; r < opts.rounds; r++) {
      const order = subjects.map((_: any, i: any) => subjects[(i + r) % subjects.length]);
      for (const s of order) {
        const sink = { latencies: [], server: [] };
        const cpuBefore = cpuSeconds(s.server.pid, { children: true });
        const started = performance.now();
        const { errors, firstError } = await closedLoop(clients(s), opts.seconds, sink);
        const elapsed = (performance.now() - started) / 1000;
        const cpu = cpuSeconds(s.server.pid, { children: true }) - cpuBefore;
        s.errors += errors;
        s.firstError ??= firstError;
        s.latencies.push(...sink.latencies);
        s.inSandbox.push(...sink.server);
        s.rounds.push({
          executions: sink.latencies.length,
          seconds: elapsed,
          perSecond: sink.latencies.length / elapsed,
          cpuSeconds: cpu,
        });
        process.stderr.write(
          `  throughput ${s.key}: round ${r + 1}/${opts.rounds}: ${(sink.latencies.length / elapsed).toFixed(1)} executions/s\n`,
        );
      }
    }
    return Object.fromEntries(
      subjects.map((s: any) => {
        const executions = s.rounds.reduce((a: any, r: any) => a + r.executions, 0);
        const seconds = s.rounds.reduce((a: any, r: any) => a + r.seconds, 0);
        const cpu = s.rounds.reduce((a: any, r: any) => a + r.cpuSeconds, 0);
        return [
          s.key,
          {
            label: CODE_MODE_CONFIGS[s.key].label,
            alone: s.alone,
            executions,
            seconds,
            perSecond: executions / seconds,
            perSecondByRound: s.rounds.map((r: any) => r.perSecond),
            latency: summarize(s.latencies),
            serverMs: summarize(s.inSandbox),
            gatewayCpuMsPerExecution: (cpu * 1000) / executions,
            errors: s.errors,
            firstError: s.firstError,
          },
        ];
      }),
    );
  } finally {
    for (const s of subjects) await closeAll(s.connections, []);
    await closeAll([], servers);
  }
}

// ---------------------------------------------------------------------------------------------
// 4. Memory

/** Median of a few RSS samples 100 ms apart (MiB), for the gateway and each of its children. */
async function sampleRss(pid: number | undefined, count = 5) {
  const gateway: any[] = [];
  const children: any[] = [];
  for (let i = 0; i < count; i++) {
    gateway.push(rssMiB(pid));
    children.push(childPids(pid).map(rssMiB).filter(Number.isFinite));
    if (i < count - 1) await sleep(100);
  }
  const last = children.at(-1);
  return { gateway: median(gateway), children: last };
}

async function measureMemory(key: any, file: any, { holdMb, releaseWaitMs }: any) {
  const server = await startGateway(file);
  const connections: any[] = [];
  const poolSize = CODE_MODE_CONFIGS[key].codeMode.poolSize;
  try {
    // Two sessions, so that two programs run at once.
    for (let i = 0; i < 2; i++) connections.push(await connect(`memory-${key}-${i}`, 'http', file, server));
    const [a, b] = connections.map((c) => c.client);
    await runTool(a);
    await sleep(1000);
    const idle = await sampleRss(server.pid);

    // The first run starts the whole pool (workers or processes); then both sessions run a few.
    const coldStart = performance.now();
    await executeCode(a, PROGRAMS.constant);
    const firstCallMs = performance.now() - coldStart;
    for (let i = 0; i < 5; i++)
      await Promise.all([executeCode(a, PROGRAMS.constant), executeCode(b, PROGRAMS.constant)]);
    // Let replacement runners (the process runtime uses each once) start and settle.
    await sleep(key === 'process' ? 3000 : 1500);
    const pool = await sampleRss(server.pid);

    // Two programs each holding `holdMb` MiB across a 2.5 s tool call; sample throughout.
    const waitMs = 2500;
    let peak: { gateway: number; children: number[] } = { gateway: 0, children: [] };
    let running = true;
    const sampler = (async () => {
      while (running) {
        const gateway = rssMiB(server.pid);
        const children = childPids(server.pid).map(rssMiB).filter(Number.isFinite);
        const total = gateway + children.reduce((x, y) => x + y, 0);
        if (total > peak.gateway + peak.children.reduce((x, y) => x + y, 0)) peak = { gateway, children };
        await sleep(50);
      }
    })();
    await Promise.all(
      [a, b].map((c) => executeCode(c, PROGRAMS.hold(holdMb, waitMs), { timeout_ms: 20000 })),
    );
    running = false;
    await sampler;
    // How long the gateway keeps the programs' memory: the first time RSS is back within a fifth
    // of what the busy programs added (QuickJS instances that grew are dropped after the run, but
    // their WebAssembly memory goes only when the runner's V8 collects it).
    // For the process runtime this counts the runner processes too (gateway + children).
    const ended = performance.now();
    const total = (r: any) => r.gateway + r.children.reduce((x: any, y: any) => x + y, 0);
    const threshold = total(pool) + 0.2 * Math.max(0, total(peak) - total(pool));
    let releasedAfterMs: number | undefined;
    let after: any;
    for (;;) {
      await sleep(250);
      const waited = performance.now() - ended;
      const now =
        rssMiB(server.pid) +
        childPids(server.pid)
          .map(rssMiB)
          .filter(Number.isFinite)
          .reduce((x, y) => x + y, 0);
      if (now <= threshold) releasedAfterMs ??= waited;
      if ((releasedAfterMs !== undefined && waited >= 1500) || waited >= releaseWaitMs) {
        after = await sampleRss(server.pid);
        break;
      }
    }
    return {
      label: CODE_MODE_CONFIGS[key].label,
      poolSize,
      holdMb,
      firstCallMs,
      idle,
      pool,
      busy: peak,
      after,
      releasedAfterMs,
      releaseWaitMs,
      perIdleRunnerMiB: (pool.gateway - idle.gateway) / poolSize,
      perBusyProgramMiB: (peak.gateway - pool.gateway) / 2,
    };
  } finally {
    await closeAll(connections, [server]);
  }
}

// ---------------------------------------------------------------------------------------------

export async function run(options: any = {}) {
  const get = (name: string, fallback: any) => options[name] ?? option(name, fallback);
  const parts = get('parts', 'latency,fanout,throughput,memory').split(',').filter(Boolean);
  const transports = get('transports', 'stdio,http').split(',').filter(Boolean);
  const config = {
    parts,
    transports,
    latency: {
      n: get('latency-n', 600),
      warmup: get('latency-warmup', 100),
      blockSize: get('latency-block', 100),
    },
    fanout: {
      reps: get('fanout-reps', 100),
      warmup: get('fanout-warmup', 10),
      blockSize: 10,
      calls: get('fanout-calls', 20),
    },
    throughput: {
      concurrency: get('concurrency', 8),
      seconds: get('throughput-seconds', 5),
      rounds: get('throughput-rounds', 2),
      warmup: get('throughput-warmup', 1),
      alone: get('throughput-alone', 6),
      configs: get('throughput-configs', 'pool2,pool4,process').split(',').filter(Boolean),
    },
    memory: {
      holdMb: get('hold-mb', 40),
      releaseWaitMs: get('release-wait-ms', 10000),
      configs: get('memory-configs', 'pool2,process').split(',').filter(Boolean),
    },
  };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'aperture-bench-code-'));
  // Also when interrupted (the cleanup handlers exit without running `finally`).
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  process.once('exit', removeDir);
  const files = Object.fromEntries(
    Object.entries<any>(CODE_MODE_CONFIGS).map(([key, c]) => [key, writeConfig(dir, key, c.codeMode)]),
  );
  const results: Record<string, any> = {
    config,
    machine: machine(),
    programs: {
      ...PROGRAMS,
      fanout: PROGRAMS.fanout(config.fanout.calls),
      fanoutParallel: PROGRAMS.fanoutParallel(config.fanout.calls),
      hold: PROGRAMS.hold(config.memory.holdMb, 2500),
    },
  };
  results.seconds = {};
  const timed = async (part: any, fn: any) => {
    if (!parts.includes(part)) return;
    const started = performance.now();
    await fn();
    results.seconds[part] = (performance.now() - started) / 1000;
    process.stderr.write(`code-mode: ${part} took ${results.seconds[part].toFixed(0)} s\n`);
  };
  try {
    await timed('latency', async () => {
      results.latency = {};
      for (const transport of transports) {
        process.stderr.write(`code-mode: latency over ${transport}, ${config.latency.n} calls × 2 targets\n`);
        results.latency[transport] = await measureLatency(transport, files.pool2, config.latency);
      }
    });
    await timed('fanout', async () => {
      results.fanout = {};
      for (const transport of transports) {
        process.stderr.write(
          `code-mode: fan-out over ${transport}, ${config.fanout.reps} repetitions × 3 targets\n`,
        );
        results.fanout[transport] = await measureFanout(transport, files.pool2, config.fanout);
      }
    });
    await timed('throughput', async () => {
      const t = config.throughput;
      process.stderr.write(
        `code-mode: throughput, ${t.concurrency} clients, ${t.rounds} × ${t.seconds} s per config\n`,
      );
      results.throughput = await measureThroughput(
        t.configs.map((key: any) => [key, files[key]]),
        t,
      );
    });
    await timed('memory', async () => {
      results.memory = {};
      for (const key of config.memory.configs) {
        process.stderr.write(`code-mode: memory, ${key}\n`);
        results.memory[key] = await measureMemory(key, files[key], config.memory);
      }
      const m = results.memory;
      if (m.pool2 && m.pool4)
        results.memoryMarginalIdleWorkerMiB = (m.pool4.pool.gateway - m.pool2.pool.gateway) / 2;
    });
  } finally {
    removeDir();
    process.off('exit', removeDir);
  }
  return results;
}

const mib = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : 'n/a');
const transportName = (t: any) => (t === 'stdio' ? 'stdio' : 'Streamable HTTP');

/** The results as a Markdown section. */
export function render(results: any) {
  const out = ['## Code mode (`execute_code`)', ''];
  if (results.latency) {
    const { n, warmup, blockSize } = results.config.latency;
    out.push(
      '### Latency of a constant program, warm pool',
      '',
      `${n} sequential calls per target after ${warmup} warm-up, interleaved in blocks of ${blockSize}; official SDK ` +
        'client; default pool (2 QuickJS workers); ms. "In sandbox" is the `durationMs` the gateway reports.',
      '',
    );
    const rows: any[] = [];
    for (const [transport, r] of Object.entries<any>(results.latency)) {
      for (const key of ['exec', 'runTool']) {
        const s = r.stats[key];
        rows.push([
          transportName(transport),
          r.labels[key],
          ms(s.p50, 2),
          ms(s.p95, 2),
          ms(s.p99, 2),
          ms(s.mean, 2),
          key === 'exec' ? `+${ms(r.addedP50, 2)} (paired +${ms(r.pairedAddedP50, 2)})` : '—',
          key === 'exec' ? ms(r.execServerMs.p50, 2) : '—',
        ]);
      }
    }
    out.push(
      table(
        ['transport', 'target', 'p50', 'p95', 'p99', 'mean', 'added over run_tool at p50', 'in sandbox p50'],
        rows,
      ),
      '',
    );
    for (const [transport, r] of Object.entries<any>(results.latency)) {
      const p50 = r.stats.exec.p50;
      out.push(
        `Target over ${transportName(transport)}: \`execute_code\` p50 ≤ ${TARGET_EXEC_P50_MS} ms warm — ${ms(p50, 2)} ms: ` +
          `**${p50 <= TARGET_EXEC_P50_MS ? 'met' : 'missed'}**.`,
      );
    }
    out.push('');
  }
  if (results.fanout) {
    const { reps, calls, warmup } = results.config.fanout;
    out.push(
      `### ${calls} tool calls: one program vs ${calls} round trips`,
      '',
      `${reps} repetitions per target after ${warmup} warm-up, interleaved in blocks of 10; wall time of one repetition ` +
        '(ms), end to end at the client. "Speed-up" is the round trips\' time divided by the program\'s: at p50, over the ' +
        'summed wall time, and the median of per-round ratios.',
      '',
    );
    const rows: any[] = [];
    for (const [transport, r] of Object.entries<any>(results.fanout)) {
      for (const key of ['sequential', 'program', 'parallel']) {
        const s = r.stats[key];
        const sp = r.speedup[key];
        rows.push([
          transportName(transport),
          r.labels[key],
          ms(s.p50, 1),
          ms(s.p95, 1),
          ms(s.mean, 1),
          r.serverMs[key] ? ms(r.serverMs[key].p50, 1) : '—',
          sp ? `${sp.p50.toFixed(2)}× / ${sp.total.toFixed(2)}× / ${sp.paired.toFixed(2)}×` : '1×',
        ]);
      }
    }
    out.push(
      table(
        ['transport', 'target', 'p50', 'p95', 'mean', 'in sandbox p50', 'speed-up (p50 / total / paired)'],
        rows,
      ),
      '',
    );
    for (const [transport, r] of Object.entries<any>(results.fanout)) {
      const base = results.latency?.[transport]?.execServerMs.p50;
      const perCall =
        base === undefined
          ? ''
          : `; in-sandbox time per call over \`return 1\`: ${ms((r.serverMs.program.p50 - base) / calls, 2)} ms`;
      out.push(
        `${transportName(transport)}: each \`tools.call\` as the gateway timed it (\`toolCalls[].ms\`, the pipeline on the ` +
          `host) p50 ${ms(r.innerCallMs.program.p50, 2)} ms sequential, ${ms(r.innerCallMs.parallel.p50, 2)} ms in \`Promise.all\`${perCall}.`,
      );
    }
    out.push('');
  }
  if (results.throughput) {
    const t = results.config.throughput;
    out.push(
      `### Throughput, ${t.concurrency} concurrent executions`,
      '',
      `${t.concurrency} SDK clients (one HTTP session each) run the program below back to back; ${t.rounds} rounds of ` +
        `${t.seconds} s per config, alternating, after ${t.warmup} s warm-up each. Latency at the client (ms); "in sandbox" ` +
        "is the gateway's `durationMs` (queue wait included); CPU is the gateway process's user + system time, runner " +
        `processes included. "Alone": ${t.alone} sequential runs on one client after the warm-up, no other load.`,
      '',
      '```js',
      results.programs.small,
      '```',
      '',
    );
    out.push(
      table(
        [
          'config',
          'executions/s',
          'per round',
          'p50',
          'p95',
          'p99',
          'in sandbox p50',
          'gateway CPU ms / execution',
          'alone: p50 / in sandbox p50',
          'errors',
        ],
        Object.values<any>(results.throughput).map((r) => [
          r.label,
          r.perSecond.toFixed(1),
          r.perSecondByRound.map((v: any) => v.toFixed(1)).join(', '),
          ms(r.latency.p50, 1),
          ms(r.latency.p95, 1),
          ms(r.latency.p99, 1),
          ms(r.serverMs.p50, 1),
          ms(r.gatewayCpuMsPerExecution, 1),
          r.alone ? `${ms(r.alone.latency.p50, 1)} / ${ms(r.alone.serverMs.p50, 1)}` : '—',
          r.errors ? `${r.errors} (${r.firstError})` : '0',
        ]),
      ),
      '',
    );
  }
  if (results.memory) {
    const m = results.memory;
    const holdMb = results.config.memory.holdMb;
    out.push(
      '### Memory',
      '',
      'VmRSS (MiB) of the gateway process (worker threads are inside it) and, for the `process` runtime, of each runner ' +
        `process. Idle: 1 s after one \`run_tool\`, before any \`execute_code\`. Pool started: after 11 runs of ` +
        '`return 1` (the first one starts the whole pool), settled. Busy: peak while 2 programs each hold a filled ' +
        `${holdMb} MiB \`Uint8Array\` across a 2.5 s tool call. Released: time after they ended until the RSS (gateway plus runner processes) ` +
        'was back within a fifth of what they added (sampled every 250 ms); after: RSS then (at least 1.5 s after the end).',
      '',
    );
    const kids = (list: any) => (list.length ? list.map(mib).join(' + ') : '—');
    out.push(
      table(
        [
          'config',
          'first `execute_code` (cold pool), ms',
          'idle',
          'pool started',
          'busy (2 programs)',
          'released after',
          'after',
          'per idle runner',
          `added per busy program (${holdMb} MiB held)`,
          'runner processes: idle / busy',
        ],
        Object.entries<any>(m).map(([key, r]) => [
          r.label,
          ms(r.firstCallMs, 0),
          mib(r.idle.gateway),
          mib(r.pool.gateway),
          mib(r.busy.gateway),
          r.releasedAfterMs === undefined
            ? `not within ${(r.releaseWaitMs / 1000).toFixed(0)} s`
            : `${(r.releasedAfterMs / 1000).toFixed(1)} s`,
          mib(r.after.gateway),
          key === 'process' ? `${mib(median(r.pool.children))} (process)` : mib(r.perIdleRunnerMiB),
          key === 'process'
            ? `${mib(median(r.busy.children) - median(r.pool.children))} (in the process)`
            : mib(r.perBusyProgramMiB),
          key === 'process' ? `${kids(r.pool.children)} / ${kids(r.busy.children)}` : '—',
        ]),
      ),
      '',
    );
    if (results.memoryMarginalIdleWorkerMiB !== undefined) {
      out.push(
        `Marginal idle worker, from pool 4 vs pool 2 with the pool started: ${mib(results.memoryMarginalIdleWorkerMiB)} MiB per worker thread.`,
        '',
      );
    }
  }
  return out.join('\n');
}

runIfMain(import.meta.url, run, render);
