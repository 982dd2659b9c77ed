#!/usr/bin/env node
/**
 * What an idle 2025-era MCP session costs the gateway in memory, and whether it all comes back
 * when the sessions expire.
 *
 * One gateway (`serve --port 0`, the built-in catalog, `http.sessionIdleMs` short), then:
 *   1. a warm-up: `warmup` sessions opened and used once (one `tools/list`), left to expire, so
 *      that what every first session builds once (the exposure views, the SDK's lazily loaded
 *      code, the JIT's work) is not counted against the sessions measured;
 *   2. RSS "before" once the warm-up sessions have expired;
 *   3. `sessions` sessions opened over plain HTTP (`initialize`, `notifications/initialized`,
 *      one `tools/list`, like a client that connected and then went quiet), `concurrency` at a
 *      time over keep-alive connections;
 *   4. RSS "open" after a short settle: (open − before) / sessions is the RSS per idle session;
 *   5. nothing sent until the sessions have expired (idle time plus one sweep), then RSS "after":
 *      after − before is what did not come back.
 *
 * RSS is VmRSS from /proc of the gateway process (its heap plus everything else it maps). The
 * gateway's heap is not collected on demand: what the figures show is what a real idle gateway
 * holds, garbage it has not collected yet included.
 *
 * Options (argv `--name value`, or env `BENCH_NAME`): sessions (10000), concurrency (32),
 * warmup (200), idle-ms (15000), json-out. Prints a Markdown section on stdout.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  GATEWAY_CLI,
  machine,
  ms,
  option,
  ROOT,
  rssMiB,
  runIfMain,
  spawnTracked,
  stopChild,
  table,
  waitForStderr,
} from './lib/common.js';

/** RSS per idle session the gateway may hold, in KiB. */
export const TARGET_KIB_PER_SESSION = 50;

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** One POST to the MCP endpoint; resolves with the status, the session header and the body. */
function post(url: URL, body: unknown, session?: string) {
  return new Promise<{ status: number; session: string | undefined; text: string }>((resolve, reject) => {
    const data = JSON.stringify(body);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'content-length': String(Buffer.byteLength(data)),
    };
    if (session) {
      headers['mcp-session-id'] = session;
      headers['mcp-protocol-version'] = '2025-11-25';
    }
    const req = http.request(url, { method: 'POST', headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          session: res.headers['mcp-session-id'] as string | undefined,
          text,
        }),
      );
    });
    req.on('error', reject);
    req.end(data);
  });
}

/** Opens one session the way a client does, lists the tools once, and leaves it idle. */
async function openIdleSession(url: URL, i: number): Promise<void> {
  const init = await post(url, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: `bench-idle-${i}`, version: '1' },
    },
  });
  if (init.status !== 200 || !init.session) throw new Error(`initialize ${i}: HTTP ${init.status}`);
  const initialized = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, init.session);
  if (initialized.status !== 202) throw new Error(`initialized ${i}: HTTP ${initialized.status}`);
  const list = await post(url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, init.session);
  if (list.status !== 200 || !list.text.includes('"tools"'))
    throw new Error(`tools/list ${i}: HTTP ${list.status}`);
}

async function openMany(url: URL, count: number, concurrency: number, offset: number) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        await openIdleSession(url, offset + i);
      }
    }),
  );
  return performance.now() - started;
}

const sleep = (msec: number) => new Promise((resolve) => setTimeout(resolve, msec));

/** The preload that lets the benchmark ask the gateway for a full GC (SIGUSR2). */
const GC_ON_SIGNAL = path.join(ROOT, 'bench', 'fixtures', 'gc-on-signal.mjs');

/**
 * The RSS after `settleMs`: as it is (the lowest of three reads a second apart), and after a
 * full garbage collection the benchmark asks for.
 */
async function settledRss(pid: number | undefined, settleMs: number) {
  await sleep(settleMs);
  let asIs = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 3; i++) {
    asIs = Math.min(asIs, rssMiB(pid));
    await sleep(1000);
  }
  if (pid) process.kill(pid, 'SIGUSR2');
  await sleep(1500);
  return { asIs, collected: rssMiB(pid) };
}

export async function run(options: any = {}) {
  const sessions = options.sessions ?? option('sessions', 10000);
  const concurrency = options.concurrency ?? option('concurrency', 32);
  const warmup = options.warmup ?? option('warmup', 200);
  const idleMs = options.idleMs ?? option('idle-ms', 15000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'aperture-bench-sessions-'));
  const config = path.join(dir, 'aperture.yaml');
  // Connections stay open (keep-alive); the per-address cap is raised so the load is not refused.
  writeFileSync(config, `http:\n  sessionIdleMs: ${idleMs}\n  maxConnectionsPerAddress: 1024\n`);
  const child = spawnTracked(
    process.execPath,
    [
      '--expose-gc',
      '--import',
      pathToFileURL(GC_ON_SIGNAL).href,
      GATEWAY_CLI,
      'serve',
      '--config',
      config,
      '--port',
      '0',
    ],
    { cwd: dir },
  );
  child.stdout?.resume();
  try {
    const { match } = await waitForStderr(child, /listening on (http:\/\/\S+)/, 30000);
    child.stderr?.resume();
    const url = new URL(match[1]!);
    // The sweep runs every min(idle, 60 s); a session expires between idle and idle + one sweep.
    const expiry = idleMs + Math.min(idleMs, 60000) + 2000;
    process.stderr.write(`sessions: warm-up, ${warmup} sessions, then ${ms(expiry / 1000, 0)} s idle\n`);
    await openMany(url, warmup, concurrency, 0);
    const before = await settledRss(child.pid, expiry);
    process.stderr.write(`sessions: opening ${sessions} idle sessions\n`);
    const openMs = await openMany(url, sessions, concurrency, warmup);
    agent.destroy();
    const open = await settledRss(child.pid, 2000);
    process.stderr.write(`sessions: waiting ${ms(expiry / 1000, 0)} s for them to expire\n`);
    const after = await settledRss(child.pid, expiry);
    return {
      config: { sessions, concurrency, warmup, idleMs },
      machine: machine(),
      rssMiB: { before, open, after },
      // Measured after a full GC each: what the sessions hold, not garbage awaiting collection.
      kibPerSession: ((open.collected - before.collected) * 1024) / sessions,
      kibLeftPerSession: ((after.collected - before.collected) * 1024) / sessions,
      openMs,
    };
  } finally {
    await stopChild(child, 5000);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The results as a Markdown section. */
export function render(r: any) {
  const { sessions, idleMs, warmup } = r.config;
  const met = r.kibPerSession <= TARGET_KIB_PER_SESSION;
  const mib = (v: number) => v.toFixed(1);
  return [
    '## Idle MCP sessions (2025 era): memory',
    '',
    `${sessions.toLocaleString('en-US')} sessions opened over plain HTTP (initialize, initialized, one ` +
      `\`tools/list\`), then left idle until they expired (\`http.sessionIdleMs\` ${idleMs} ms); ` +
      `${warmup} warm-up sessions opened and expired first. Gateway VmRSS in MiB, as it was and ` +
      'after a full GC the benchmark asked for (the per-session figures use the latter).',
    '',
    table(
      ['moment', 'RSS as is', 'RSS after a full GC'],
      [
        ['before (warm, no session)', mib(r.rssMiB.before.asIs), mib(r.rssMiB.before.collected)],
        [
          `${sessions.toLocaleString('en-US')} idle sessions (opened in ${ms(r.openMs / 1000, 1)} s)`,
          mib(r.rssMiB.open.asIs),
          mib(r.rssMiB.open.collected),
        ],
        ['after they expired', mib(r.rssMiB.after.asIs), mib(r.rssMiB.after.collected)],
      ],
    ),
    '',
    `RSS per idle session ${r.kibPerSession.toFixed(1)} KiB (target ≤ ${TARGET_KIB_PER_SESSION} KiB: ` +
      `${met ? '**met**' : '**missed**'}); left after expiry ${r.kibLeftPerSession.toFixed(1)} KiB per ` +
      `session (${mib(r.rssMiB.after.collected)} MiB against ${mib(r.rssMiB.before.collected)} MiB before).`,
    '',
  ].join('\n');
}

runIfMain(import.meta.url, run, render);
