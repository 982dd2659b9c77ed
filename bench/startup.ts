#!/usr/bin/env node
/**
 * Start-up time and memory of the gateway with the built-in catalog, against a bare MCP SDK
 * server and bare Node.
 *
 * Measured per run, from just before `spawn` (so process creation is included):
 *   - gateway   `node dist/cli/main.js serve --port 0`, no config, in an empty temp cwd: until the
 *               "listening" line on stderr, and until `GET /readyz` answers 200
 *   - baseline  `node bench/fixtures/baseline-noop-server.mjs --http --port 0`: the same two moments
 *   - stdio     `node dist/cli/main.js serve --stdio` and the baseline with `--stdio`: until the SDK
 *               client's first `tools/list` is answered (spawn, initialize, list)
 *   - cli       `node dist/cli/main.js --version`: until exit (loading every CLI module, no serving)
 *   - node      `node -e ""`: until exit, Node's own floor
 * The six alternate run by run (after one untimed round that warms the file cache). For the stdio
 * subjects, the CPU time the server process used until the answer is taken too (all its threads,
 * from /proc/<pid>/task/<tid>/schedstat): on a machine shared with other work it moves less than
 * wall time does.
 *
 * `--compare-cli FILE` (another build's `dist/cli/main.js`) adds that build's `/readyz` and stdio
 * subjects to the same rotation, so two builds are compared side by side in one run.
 *
 * Then memory: VmRSS (/proc/<pid>/status) of the idle gateway after start, and after 1,000
 * sequential `run_tool` calls (`time:now`, built-in) through the SDK client over Streamable HTTP;
 * the baseline server alike with 1,000 `noop` calls.
 *
 * Options (argv `--name value`, or env `BENCH_NAME`): runs (10), calls (1000), compare-cli, json-out.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  BASELINE_SERVER,
  GATEWAY_CLI,
  machine,
  ms,
  option,
  rssMiB,
  runIfMain,
  signed,
  spawnTracked,
  stopChild,
  summarize,
  table,
  waitForStderr,
} from './lib/common.js';

export const TARGET_READY_MS = 500;
/** The first `tools/list` of a stdio client, as a multiple of a bare SDK server's. */
export const TARGET_FIRST_LIST_RATIO = 1.2;

const LISTENING = /listening on (http:\/\/\S+)\/mcp/;

/** One GET with a fresh connection; resolves with the status, or rejects on a socket error. */
function getStatus(url: string) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', reject);
  });
}

/** Polls `url` until it answers 200 (a refused connection or another status is retried at once). */
async function until200(url: string, timeoutMs = 15000) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const status = await getStatus(url).catch(() => 0);
    if (status === 200) return performance.now();
    if (performance.now() > deadline) throw new Error(`${url} never answered 200`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * CPU time (ms) process `pid` used so far, all its live threads summed; undefined where /proc
 * has no schedstat (not Linux).
 */
function processCpuMs(pid: number | undefined): number | undefined {
  const tasks = `/proc/${pid}/task`;
  if (pid === undefined || !existsSync(tasks)) return undefined;
  let ns = 0;
  for (const tid of readdirSync(tasks)) {
    try {
      ns += Number(readFileSync(`${tasks}/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // A thread that ended meanwhile.
    }
  }
  return ns / 1e6;
}

/** Starts a server; times the "listening" line and the first 200 from /readyz. Leaves it running. */
async function startServer(args: any, cwd: string) {
  const start = performance.now();
  const child = spawnTracked(process.execPath, args, { cwd });
  child.stdout?.resume();
  try {
    const { match, at } = await waitForStderr(child, LISTENING);
    const ready = await until200(`${match[1]}/readyz`);
    return { child, url: match[1], listenMs: at - start, readyMs: ready - start };
  } catch (error: any) {
    await stopChild(child);
    throw error;
  }
}

/** Times a command that exits on its own. */
async function timeToExit(args: any, cwd: string) {
  const start = performance.now();
  const child = spawnTracked(process.execPath, args, { cwd, stdio: 'ignore' });
  const code = await new Promise((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`node ${args.join(' ')} exited with ${code}`);
  return performance.now() - start;
}

/**
 * Times a stdio server from spawn to the answer of its first `tools/list` (the SDK client
 * connects, initializes, lists), as an agent that starts it sees it.
 */
async function timeToFirstList(args: any, cwd: string) {
  const start = performance.now();
  const transport = new StdioClientTransport({ command: process.execPath, args, cwd, stderr: 'ignore' });
  const client = new Client({ name: 'bench-startup-stdio', version: '1.0.0' });
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    const elapsed = performance.now() - start;
    const cpu = processCpuMs(transport.pid ?? undefined);
    if (tools.length === 0) throw new Error(`node ${args.join(' ')} listed no tools`);
    return { elapsed, cpu };
  } finally {
    await client.close().catch(() => {});
  }
}

/** RSS after start (idle), then after `calls` sequential tool calls through the SDK client. */
async function memory(args: any, cwd: string, call: any, calls: any) {
  const server = await startServer(args, cwd);
  const pid = server.child.pid;
  const settle = () => new Promise((resolve) => setTimeout(resolve, 1000));
  try {
    await settle();
    const idle = rssMiB(pid);
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`));
    const client = new Client({ name: 'bench-startup', version: '1.0.0' });
    await client.connect(transport);
    try {
      for (let i = 0; i < calls; i++) {
        const result = await call(client);
        if (result.isError) throw new Error(`call failed: ${JSON.stringify(result)}`);
      }
      const afterCalls = rssMiB(pid);
      await settle();
      return { idle, afterCalls, afterCallsSettled: rssMiB(pid) };
    } finally {
      await transport.terminateSession().catch(() => {});
      await client.close().catch(() => {});
    }
  } finally {
    await stopChild(server.child);
  }
}

export async function run(options: any = {}) {
  const runs = options.runs ?? option('runs', 10);
  const calls = options.calls ?? option('calls', 1000);
  const compareCli: string | undefined = options.compareCli ?? (option('compare-cli', '') || undefined);
  // An empty cwd: no ./aperture.yaml, so the gateway serves its embedded default catalog.
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'aperture-bench-'));
  try {
    const subjects: any[] = [
      { key: 'gateway', server: true, args: [GATEWAY_CLI, 'serve', '--port', '0'] },
      { key: 'baseline', server: true, args: [BASELINE_SERVER, '--http', '--port', '0'] },
      { key: 'gateway-stdio', stdio: true, args: [GATEWAY_CLI, 'serve', '--stdio'] },
      { key: 'baseline-stdio', stdio: true, args: [BASELINE_SERVER, '--stdio'] },
      { key: 'cli', server: false, args: [GATEWAY_CLI, '--version'] },
      { key: 'node', server: false, args: ['-e', ''] },
      ...(compareCli
        ? [
            { key: 'compare', server: true, args: [path.resolve(compareCli), 'serve', '--port', '0'] },
            { key: 'compare-stdio', stdio: true, args: [path.resolve(compareCli), 'serve', '--stdio'] },
          ]
        : []),
    ];
    const samples: Record<string, any> = Object.fromEntries(
      subjects.map((s) => [s.key, { listen: [], ready: [], exit: [], firstList: [], firstListCpu: [] }]),
    );
    for (let r = -1; r < runs; r++) {
      process.stderr.write(`startup: ${r < 0 ? 'warm-up round' : `run ${r + 1}/${runs}`}\n`);
      // Rotate the order so that none always follows another's shutdown.
      const order = subjects.map((_, i) => subjects[(i + Math.max(r, 0)) % subjects.length]);
      for (const subject of order) {
        if (subject.stdio) {
          const { elapsed, cpu } = await timeToFirstList(subject.args, cwd);
          if (r >= 0) {
            samples[subject.key].firstList.push(elapsed);
            if (cpu !== undefined) samples[subject.key].firstListCpu.push(cpu);
          }
        } else if (subject.server) {
          const server = await startServer(subject.args, cwd);
          await stopChild(server.child);
          if (r >= 0) {
            samples[subject.key].listen.push(server.listenMs);
            samples[subject.key].ready.push(server.readyMs);
          }
        } else {
          const elapsed = await timeToExit(subject.args, cwd);
          if (r >= 0) samples[subject.key].exit.push(elapsed);
        }
      }
    }
    const startup: Record<string, any> = {};
    for (const [key, s] of Object.entries<any>(samples)) {
      startup[key] = Object.fromEntries(
        Object.entries<any>(s)
          .filter(([, v]) => v.length > 0)
          .map(([k, v]) => [k, summarize(v)]),
      );
    }

    process.stderr.write(`startup: memory, ${calls} calls each\n`);
    const gatewayMemory = await memory(
      subjects[0].args,
      cwd,
      (client: any) => client.callTool({ name: 'run_tool', arguments: { tool_id: 'time:now', args: {} } }),
      calls,
    );
    const baselineMemory = await memory(
      subjects[1].args,
      cwd,
      (client: any) => client.callTool({ name: 'noop', arguments: {} }),
      calls,
    );
    return {
      config: { runs, calls, ...(compareCli ? { compareCli } : {}) },
      machine: machine(),
      startup,
      memory: { gateway: gatewayMemory, baseline: baselineMemory },
    };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

export function render(results: any) {
  const { runs, calls } = results.config;
  const s = results.startup;
  const row = (label: string, key: any, field: any) => {
    const v = s[key]?.[field];
    return v ? [label, ms(v.p50, 1), ms(v.min, 1), ms(v.max, 1)] : [label, 'n/a', 'n/a', 'n/a'];
  };
  const ready = s.gateway.ready.p50;
  const floor = s.node.exit.p50;
  const m = results.memory;
  const mib = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : 'n/a');
  return [
    '## Start-up and memory',
    '',
    `${runs} runs each, interleaved, after one warm-up round; from spawn. Times in ms.`,
    '',
    table(
      ['what', 'p50', 'min', 'max'],
      [
        row('gateway (built-in catalog): "listening" line', 'gateway', 'listen'),
        row('gateway (built-in catalog): `/readyz` 200', 'gateway', 'ready'),
        row('baseline SDK server (HTTP): "listening" line', 'baseline', 'listen'),
        row('baseline SDK server (HTTP): `/readyz` 200', 'baseline', 'ready'),
        row('gateway `serve --stdio`: first `tools/list` answered', 'gateway-stdio', 'firstList'),
        row('baseline SDK server (stdio): first `tools/list` answered', 'baseline-stdio', 'firstList'),
        row('gateway `serve --stdio`: its CPU time to that answer', 'gateway-stdio', 'firstListCpu'),
        row('baseline SDK server (stdio): its CPU time to that answer', 'baseline-stdio', 'firstListCpu'),
        ...(s.compare
          ? [
              row('compared build: `/readyz` 200', 'compare', 'ready'),
              row(
                'compared build `serve --stdio`: first `tools/list` answered',
                'compare-stdio',
                'firstList',
              ),
              row(
                'compared build `serve --stdio`: its CPU time to that answer',
                'compare-stdio',
                'firstListCpu',
              ),
            ]
          : []),
        row('`aperture --version` (CLI modules loaded, exit)', 'cli', 'exit'),
        row('`node -e ""` (exit)', 'node', 'exit'),
      ],
    ),
    '',
    `Gateway ready at p50 ${ms(ready, 1)} ms = ${(ready / s.baseline.ready.p50).toFixed(2)}× the baseline server ` +
      `(${signed(ready - s.baseline.ready.p50, 1)} ms), ${(ready / floor).toFixed(1)}× bare Node ` +
      `(${signed(ready - floor, 1)} ms). Target ≤ ${TARGET_READY_MS} ms to ready: ` +
      `**${ready <= TARGET_READY_MS ? 'met' : 'missed'}**.`,
    '',
    ...(s['gateway-stdio']?.firstList && s['baseline-stdio']?.firstList
      ? [
          `Over stdio, the first \`tools/list\` is answered at p50 ${ms(s['gateway-stdio'].firstList.p50, 1)} ms = ` +
            `${(s['gateway-stdio'].firstList.p50 / s['baseline-stdio'].firstList.p50).toFixed(2)}× the bare SDK server's ` +
            `(${ms(s['baseline-stdio'].firstList.p50, 1)} ms). Target ≤ ${TARGET_FIRST_LIST_RATIO}×: ` +
            `**${s['gateway-stdio'].firstList.p50 / s['baseline-stdio'].firstList.p50 <= TARGET_FIRST_LIST_RATIO ? 'met' : 'missed'}**.`,
          '',
        ]
      : []),
    ...(s['gateway-stdio']?.firstListCpu && s['baseline-stdio']?.firstListCpu
      ? [
          `CPU time to that answer: ${(s['gateway-stdio'].firstListCpu.p50 / s['baseline-stdio'].firstListCpu.p50).toFixed(2)}× ` +
            `the bare SDK server's (p50 ${ms(s['gateway-stdio'].firstListCpu.p50, 1)} vs ${ms(s['baseline-stdio'].firstListCpu.p50, 1)} ms).`,
          '',
        ]
      : []),
    ...(s.compare && s['compare-stdio']
      ? [
          `Compared build (${results.config.compareCli}): \`/readyz\` at p50 ${ms(s.compare.ready.p50, 1)} ms ` +
            `(${(s.compare.ready.p50 / s.baseline.ready.p50).toFixed(2)}× the baseline); first stdio \`tools/list\` at p50 ` +
            `${ms(s['compare-stdio'].firstList.p50, 1)} ms (${(s['compare-stdio'].firstList.p50 / s['baseline-stdio'].firstList.p50).toFixed(2)}× the bare SDK server's).`,
          '',
        ]
      : []),
    table(
      ['RSS (MiB)', 'idle after start', `after ${calls} calls`, 'after calls + 1 s idle'],
      [
        [
          'gateway (`run_tool` → `time:now`)',
          mib(m.gateway.idle),
          mib(m.gateway.afterCalls),
          mib(m.gateway.afterCallsSettled),
        ],
        [
          'baseline SDK server (`noop`)',
          mib(m.baseline.idle),
          mib(m.baseline.afterCalls),
          mib(m.baseline.afterCallsSettled),
        ],
      ],
    ),
    '',
  ].join('\n');
}

runIfMain(import.meta.url, run, render);
