#!/usr/bin/env node
/**
 * A downstream server crash under load, and what idle sessions cost, for one or two gateway builds
 * side by side (`--before-cli FILE`: e.g. the original `dist/cli/main.js` kept in a copy).
 *
 * Three parts, in one run:
 *   - crash     `clients` SDK clients (one Streamable HTTP session each) call `faulty__sleep`
 *               ({ms: `call-ms`}) in a loop through `aperture serve` with one real stdio
 *               downstream server (test/fixtures/mcp/faulty-server.mjs), so about `clients` calls
 *               are in flight at any moment. After `kill-at-ms` the downstream process is killed
 *               (SIGKILL, found among the gateway's children in /proc); the gateway restarts it.
 *               The run goes on for `after-ms` more. Reported: calls made and failed from the
 *               kill on, and the recovery time — from the kill to the last failed call's answer
 *               (after it, every call succeeded). The gateway's default resilience settings
 *               (circuit breaker: 5 failures, 30 s) are in force.
 *   - sessions  `sessions` MCP sessions opened and left idle (initialize only), then the same
 *               number of sessions whose clients declare `sampling` and each make one `echo` call
 *               (the reference `everything` server over stdio: one session first, then the
 *               others at once); reported: the gateway's RSS delta per idle session, the
 *               downstream processes and their RSS after the calls, and the processes still
 *               running `idle-wait-ms` later with every session still open and idle.
 *   - refusals  `refusals` `initialize` requests with a wrong `Accept` header (the transport
 *               answers 406), 50 at a time; reported: the gateway's RSS growth.
 *
 * Options (argv `--name value`, or env `BENCH_NAME`): parts (`crash,sessions,refusals`), clients (100),
 * call-ms (100), kill-at-ms (3000), after-ms (40000), sessions (40), idle-wait-ms (65000), refusals (4000),
 * before-cli (none),
 * json-out; `--gateway-cli FILE` measures another build (common.ts). Prints a Markdown section on
 * stdout, progress on stderr.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { GATEWAY_CLI, machine, option, ROOT, rssMiB, runIfMain, table } from './lib/common.js';
import { startHttpServer } from './lib/mcp-clients.js';
import { childPids } from './lib/proc.js';

const FAULTY = path.join(ROOT, 'test', 'fixtures', 'mcp', 'faulty-server.mjs');
const require = createRequire(import.meta.url);

function everythingBin() {
  const manifest = require.resolve('@modelcontextprotocol/server-everything/package.json');
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8'));
  return path.join(path.dirname(manifest), typeof bin === 'string' ? bin : Object.values<any>(bin)[0]);
}

function writeConfig(dir: string, server: any) {
  const file = path.join(dir, `${server}.yaml`);
  const q = (value: any) => JSON.stringify(value);
  const command = server === 'faulty' ? `[${q(FAULTY)}]` : `[${q(everythingBin())}, stdio]`;
  writeFileSync(
    file,
    [
      'tools: { builtin: false }',
      'exposure: flat',
      'observability: { logLevel: warn, callLogs: false }',
      'state: { driver: memory }',
      'servers:',
      `  ${server}: { command: ${q(process.execPath)}, args: ${command} }`,
    ].join('\n'),
  );
  return file;
}

function cmdline(pid: number | undefined) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

/** Processes below `pid` (any depth) whose command line contains `needle`. */
function descendants(pid: number | undefined, needle: any) {
  const found: any[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of childPids(queue.shift())) {
      queue.push(child);
      if (cmdline(child).includes(needle)) found.push(child);
    }
  }
  return found;
}

/** Waits until `/readyz` answers 200: every downstream server has been tried once. */
async function ready(mcpUrl: any) {
  const url = mcpUrl.replace(/\/mcp$/, '');
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const ok = await fetch(`${url}/readyz`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('gateway not ready');
}

async function connect(url: string, label: string, capabilities: any = {}) {
  const client = new Client({ name: label, version: '1' }, { capabilities });
  if (capabilities.sampling) {
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      model: 'm',
      role: 'assistant',
      content: { type: 'text', text: 'ok' },
    }));
  }
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return {
    client,
    close: async () => {
      await transport.terminateSession().catch(() => {});
      await client.close().catch(() => {});
    },
  };
}

/** `aperture serve` of the build `cli` on a free port, with the config for `downstream`. */
function startGateway(cli: any, dir: string, downstream: Parameters<typeof writeConfig>[1]) {
  return startHttpServer([cli, 'serve', '--port', '0', '--config', writeConfig(dir, downstream)]);
}

async function crashRun(cli: any, label: string, dir: string) {
  const clients = Number(option('clients', '100'));
  const callMs = Number(option('call-ms', '100'));
  const killAtMs = Number(option('kill-at-ms', '3000'));
  const afterMs = Number(option('after-ms', '40000'));
  const gateway = await startGateway(cli, dir, 'faulty');
  try {
    await ready(gateway.url);
    const sessions = await Promise.all(
      Array.from({ length: clients }, (_, i) => connect(gateway.url, `c${i}`)),
    );
    const calls: any = [];
    let stop = false;
    const loops = sessions.map(async ({ client }) => {
      while (!stop) {
        const started = performance.now();
        const ok = await client
          .callTool({ name: 'faulty__sleep', arguments: { ms: callMs } }, undefined, { timeout: 60_000 })
          .then(
            (result) => result.isError !== true,
            () => false,
          );
        calls.push({ started, ended: performance.now(), ok });
        // A failed call is answered at once: do not spin.
        if (!ok) await new Promise((resolve) => setTimeout(resolve, callMs));
      }
    });
    await new Promise((resolve) => setTimeout(resolve, killAtMs));
    const [victim] = descendants(gateway.pid, 'faulty-server.mjs');
    if (!victim) throw new Error('downstream process not found');
    const killedAt = performance.now();
    process.kill(victim, 'SIGKILL');
    process.stderr.write(`${label}: killed downstream ${victim}\n`);
    await new Promise((resolve) => setTimeout(resolve, afterMs));
    stop = true;
    await Promise.all(loops);
    await Promise.all(sessions.map((s) => s.close()));
    const after = calls.filter((c: any) => c.ended >= killedAt);
    const failed = after.filter((c: any) => !c.ok);
    const lastFailure = Math.max(killedAt, ...failed.map((c: any) => c.ended));
    return {
      build: label,
      clients,
      callsAfterKill: after.length,
      failed: failed.length,
      failedPct: after.length ? (100 * failed.length) / after.length : 0,
      afterMs,
      recoveryMs: failed.length ? lastFailure - killedAt : 0,
    };
  } finally {
    await gateway.stop();
  }
}

async function sessionsRun(cli: any, label: string, dir: string) {
  const n = Number(option('sessions', '40'));
  const idleWaitMs = Number(option('idle-wait-ms', '65000'));
  const gateway = await startGateway(cli, dir, 'everything');
  try {
    await ready(gateway.url);
    const settle = () => new Promise((resolve) => setTimeout(resolve, 1500));
    await settle();
    const base = rssMiB(gateway.pid);
    const idle: any[] = [];
    for (let i = 0; i < n; i++) idle.push(await connect(gateway.url, `idle${i}`));
    await settle();
    const idleRss = rssMiB(gateway.pid);
    const downstreamBefore = descendants(gateway.pid, 'server-everything');
    const samplers: any[] = [];
    for (let i = 0; i < n; i++) samplers.push(await connect(gateway.url, `sampler${i}`, { sampling: {} }));
    // One session calls first, then the others all at once (clients rarely arrive in lockstep).
    const echo = (s: any, i: any) =>
      s.client.callTool({ name: 'everything__echo', arguments: { message: `m${i}` } });
    await echo(samplers[0], 0);
    await Promise.all(samplers.slice(1).map((s, i) => echo(s, i + 1)));
    await settle();
    const downstream = descendants(gateway.pid, 'server-everything');
    const downstreamRss = downstream.reduce((sum, pid) => sum + (rssMiB(pid) || 0), 0);
    // The sessions stay open and idle, the clients never say goodbye: what is left a while later?
    await new Promise((resolve) => setTimeout(resolve, idleWaitMs));
    const lingering = descendants(gateway.pid, 'server-everything').length;
    await Promise.all([...idle, ...samplers].map((s) => s.close()));
    return {
      build: label,
      sessions: n,
      rssPerIdleSessionKiB: ((idleRss - base) * 1024) / n,
      downstreamProcessesIdle: downstreamBefore.length,
      downstreamProcessesAfterSamplingCalls: downstream.length,
      downstreamRssMiB: downstreamRss,
      idleWaitMs,
      downstreamProcessesAfterIdleWait: lingering,
    };
  } finally {
    await gateway.stop();
  }
}

/** `refusals` initialize requests the transport refuses (406: wrong Accept), then the gateway's RSS. */
async function refusalsRun(cli: any, label: string, dir: string) {
  const n = Number(option('refusals', '4000'));
  const gateway = await startGateway(cli, dir, 'faulty');
  try {
    await ready(gateway.url);
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'probe', version: '1' },
      },
    });
    const refuse = async () => {
      const response = await fetch(gateway.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/plain' },
        body,
      });
      await response.arrayBuffer();
      return response.status;
    };
    for (let i = 0; i < 200; i++) await refuse();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const base = rssMiB(gateway.pid);
    const statuses = new Set();
    for (let i = 0; i < n; i += 50) {
      for (const status of await Promise.all(Array.from({ length: 50 }, refuse))) statuses.add(status);
    }
    await new Promise((resolve) => setTimeout(resolve, 2000));
    return { build: label, refusals: n, statuses: [...statuses], rssDeltaMiB: rssMiB(gateway.pid) - base };
  } finally {
    await gateway.stop();
  }
}

async function run() {
  const parts = option('parts', 'crash,sessions,refusals').split(',');
  const before = option('before-cli', '');
  const builds = [
    ...(before ? [{ cli: path.resolve(before), label: 'before' }] : []),
    { cli: GATEWAY_CLI, label: 'after' },
  ];
  const dir = mkdtempSync(path.join(os.tmpdir(), 'aperture-crash-bench-'));
  const results: { machine: ReturnType<typeof machine>; crash: any[]; sessions: any[]; refusals: any[] } = {
    machine: machine(),
    crash: [],
    sessions: [],
    refusals: [],
  };
  try {
    for (const build of builds) {
      if (parts.includes('crash')) results.crash.push(await crashRun(build.cli, build.label, dir));
      if (parts.includes('sessions')) results.sessions.push(await sessionsRun(build.cli, build.label, dir));
      if (parts.includes('refusals')) results.refusals.push(await refusalsRun(build.cli, build.label, dir));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

function render(results: any) {
  const lines = [
    `Machine: ${results.machine.cpu}, ${results.machine.nproc} cores, load ${results.machine.loadavg}, ${results.machine.git}`,
    '',
  ];
  if (results.crash.length) {
    lines.push(
      table(
        ['build', 'clients', 'calls from the kill on', 'failed', 'recovery (kill → last failure)'],
        results.crash.map((r: any) => [
          r.build,
          r.clients,
          `${r.callsAfterKill} (${(r.afterMs / 1000).toFixed(0)} s)`,
          `${r.failed} (${r.failedPct.toFixed(0)} %)`,
          `${(r.recoveryMs / 1000).toFixed(1)} s`,
        ]),
      ),
      '',
    );
  }
  if (results.sessions.length) {
    lines.push(
      table(
        [
          'build',
          'sessions',
          'gateway RSS / idle session',
          'downstream processes (idle)',
          'after one call per sampling session',
          'their RSS',
          'still running after the idle wait',
        ],
        results.sessions.map((r: any) => [
          r.build,
          r.sessions,
          `${r.rssPerIdleSessionKiB.toFixed(0)} KiB`,
          r.downstreamProcessesIdle,
          r.downstreamProcessesAfterSamplingCalls,
          `${r.downstreamRssMiB.toFixed(0)} MiB`,
          `${r.downstreamProcessesAfterIdleWait} (${(r.idleWaitMs / 1000).toFixed(0)} s)`,
        ]),
      ),
    );
  }
  if (results.refusals.length) {
    lines.push(
      '',
      table(
        ['build', 'refused initialize requests', 'statuses', 'gateway RSS growth'],
        results.refusals.map((r: any) => [
          r.build,
          r.refusals,
          r.statuses.join(', '),
          `${r.rssDeltaMiB.toFixed(1)} MiB`,
        ]),
      ),
    );
  }
  return lines.join('\n');
}

runIfMain(import.meta.url, run, render);

export { render, run };
