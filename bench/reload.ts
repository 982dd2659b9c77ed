#!/usr/bin/env node
/**
 * Hot reload of a large config against a restart, side by side in one run.
 *
 * `aperture serve --no-watch` with `servers` (50) stdio downstream servers (the bare SDK server of
 * bench/fixtures/baseline-noop-server.mjs, one tool each) and `sessions` (20) open MCP sessions
 * over Streamable HTTP. Then one server's entry changes (an environment variable) and the change
 * is applied two ways, alternating which goes first from run to run:
 *   - reload   `POST /api/admin/reload`, timed until it answers (the changed server restarted and
 *              tried once). Then every session lists its tools again on its own session id; a
 *              session counts as kept when that works and it received `tools/list_changed`.
 *              Downstream processes are compared by pid before and after.
 *   - restart  what a config change cost before hot reload: SIGTERM, then `aperture serve` again
 *              with the new config, timed from the SIGTERM until `/readyz` answers 200 (every
 *              server tried once). The old sessions are tried on the new gateway (their ids are
 *              unknown there: none is kept).
 *
 * Options (argv `--name value`, or env `BENCH_NAME`): servers (50), sessions (20), runs (3), json-out;
 * `--gateway-cli FILE` measures another build (common.ts). Prints a Markdown section on stdout,
 * progress on stderr.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { BASELINE_SERVER, GATEWAY_CLI, machine, median, ms, option, runIfMain, table } from './lib/common.js';
import { type HttpServer, startHttpServer } from './lib/mcp-clients.js';
import { childPids } from './lib/proc.js';

interface Session {
  client: Client;
  transport: StreamableHTTPClientTransport;
  sessionId: string | undefined;
  notified: number;
}

interface RunResult {
  reloadMs: number;
  /** What the gateway itself reported as the reload's duration (`result.ms`). */
  reloadReportedMs: number;
  reloadSessionsKept: number;
  processesKept: number;
  processesRestarted: number;
  restartMs: number;
  restartSessionsKept: number;
}

export interface ReloadResults {
  servers: number;
  sessions: number;
  runs: RunResult[];
  machine: ReturnType<typeof machine>;
}

/** The config: `servers` entries, the first one's environment marked with `generation`. */
function writeConfig(file: string, servers: number, generation: number): void {
  const q = (value: string) => JSON.stringify(value);
  const lines = [
    'tools: { builtin: false }',
    'exposure: flat',
    'observability: { logLevel: warn, callLogs: false }',
    'state: { driver: memory }',
    'startup: { waitMs: 120000 }',
    'servers:',
  ];
  for (let i = 0; i < servers; i++) {
    const env = i === 0 ? `, env: { GENERATION: "${generation}" }` : '';
    lines.push(
      `  s${String(i).padStart(2, '0')}: { command: ${q(process.execPath)}, args: [${q(BASELINE_SERVER)}, --stdio]${env} }`,
    );
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
}

/** The downstream server processes below the gateway (any depth), by pid. */
function downstreamPids(root: number | undefined): Set<number> {
  const found = new Set<number>();
  const queue = [root];
  while (queue.length > 0) {
    for (const child of childPids(queue.shift())) {
      queue.push(child);
      // A sandboxed server is bwrap, bwrap (its PID namespace's first process), then the server:
      // only the server itself counts.
      const argv = cmdline(child).split('\0');
      if (argv.includes(BASELINE_SERVER) && path.basename(argv[0] ?? '') !== 'bwrap') found.add(child);
    }
  }
  return found;
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

async function untilReady(base: string): Promise<void> {
  for (;;) {
    const ok = await fetch(`${base}/readyz`)
      .then((res) => res.ok)
      .catch(() => false);
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function startGateway(config: string): Promise<HttpServer & { base: string }> {
  const server = await startHttpServer(
    [GATEWAY_CLI, 'serve', '--port', '0', '--no-watch', '--config', config],
    {
      timeoutMs: 120_000,
      graceMs: 10_000,
    },
  );
  const base = server.url.replace(/\/mcp$/, '');
  await untilReady(base);
  return { ...server, base };
}

async function openSessions(url: string, count: number): Promise<Session[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const transport = new StreamableHTTPClientTransport(new URL(url));
      const client = new Client({ name: `bench-reload-${i}`, version: '1.0.0' });
      await client.connect(transport);
      const session: Session = { client, transport, sessionId: transport.sessionId, notified: 0 };
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        session.notified++;
      });
      return session;
    }),
  );
}

/** A session is kept when it still answers on its own id and heard of the change. */
async function keptSessions(sessions: Session[], waitForNotice: boolean): Promise<number> {
  if (waitForNotice) {
    // The notice follows the catalog change's debounce; bounded, as a safety net only.
    const deadline = performance.now() + 10_000;
    while (sessions.some((s) => s.notified === 0) && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  const kept = await Promise.all(
    sessions.map(async (session) => {
      const listed = await session.client
        .listTools()
        .then(() => true)
        .catch(() => false);
      return listed && session.notified > 0 && session.transport.sessionId === session.sessionId;
    }),
  );
  return kept.filter(Boolean).length;
}

async function closeSessions(sessions: Session[]): Promise<void> {
  await Promise.all(sessions.map((s) => s.client.close().catch(() => {})));
}

async function reloadWay(dir: string, servers: number, sessionCount: number, generation: number) {
  const config = path.join(dir, 'aperture.yaml');
  writeConfig(config, servers, generation);
  const gateway = await startGateway(config);
  try {
    const sessions = await openSessions(gateway.url, sessionCount);
    const before = downstreamPids(gateway.pid);
    writeConfig(config, servers, generation + 1);
    const start = performance.now();
    // A bodiless POST carries the marker header (docs/SECURITY.md, cross-site requests).
    const res = await fetch(`${gateway.base}/api/admin/reload`, {
      method: 'POST',
      headers: { 'x-aperture-request': '1' },
    });
    const reloadMs = performance.now() - start;
    const body = (await res.json()) as {
      success: boolean;
      result?: { ms: number; servers: { changed: string[] } };
    };
    if (!body.success || body.result?.servers.changed.length !== 1) {
      throw new Error(`reload did not change one server: ${JSON.stringify(body)}`);
    }
    const kept = await keptSessions(sessions, true);
    const after = downstreamPids(gateway.pid);
    await closeSessions(sessions);
    return {
      reloadMs,
      reloadReportedMs: body.result.ms,
      reloadSessionsKept: kept,
      processesKept: [...before].filter((pid) => after.has(pid)).length,
      processesRestarted: [...after].filter((pid) => !before.has(pid)).length,
    };
  } finally {
    await gateway.stop();
  }
}

async function restartWay(dir: string, servers: number, sessionCount: number, generation: number) {
  const config = path.join(dir, 'aperture-restart.yaml');
  writeConfig(config, servers, generation);
  const first = await startGateway(config);
  const sessions = await openSessions(first.url, sessionCount);
  writeConfig(config, servers, generation + 1);
  const start = performance.now();
  await first.stop();
  const second = await startGateway(config);
  const restartMs = performance.now() - start;
  try {
    // The sessions' ids belong to the old process: the new one refuses them.
    const kept = await keptSessions(sessions, false);
    await closeSessions(sessions);
    return { restartMs, restartSessionsKept: kept };
  } finally {
    await second.stop();
  }
}

export async function run(): Promise<ReloadResults> {
  const servers = Number(option('servers', '50'));
  const sessionCount = Number(option('sessions', '20'));
  const runs = Number(option('runs', '3'));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'aperture-bench-reload-'));
  const results: RunResult[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      // Alternate which way goes first, so drift in the machine's load hits both alike.
      let reload: Awaited<ReturnType<typeof reloadWay>>;
      let restart: Awaited<ReturnType<typeof restartWay>>;
      if (i % 2 === 0) {
        reload = await reloadWay(dir, servers, sessionCount, i * 10);
        restart = await restartWay(dir, servers, sessionCount, i * 10);
      } else {
        restart = await restartWay(dir, servers, sessionCount, i * 10);
        reload = await reloadWay(dir, servers, sessionCount, i * 10);
      }
      results.push({ ...reload, ...restart });
      process.stderr.write(
        `run ${i + 1}/${runs}: reload ${ms(reload.reloadMs, 0)} ms, restart ${ms(restart.restartMs, 0)} ms\n`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { servers, sessions: sessionCount, runs: results, machine: machine() };
}

export function render(results: ReloadResults): string {
  const m = (pick: (r: RunResult) => number) => median(results.runs.map(pick));
  const reload = m((r) => r.reloadMs);
  const restart = m((r) => r.restartMs);
  return [
    `## Hot reload: ${results.servers} servers, one changed, ${results.sessions} open sessions`,
    '',
    `Medians of ${results.runs.length} runs; the two ways alternate which goes first.`,
    '',
    table(
      ['way', 'time to apply (ms)', '× restart', 'sessions kept', 'downstream processes kept', 'restarted'],
      [
        [
          'reload (POST /api/admin/reload)',
          ms(reload, 0),
          (reload / restart).toFixed(3),
          `${m((r) => r.reloadSessionsKept)}/${results.sessions}`,
          `${m((r) => r.processesKept)}/${results.servers}`,
          String(m((r) => r.processesRestarted)),
        ],
        [
          'restart (SIGTERM, serve again, /readyz 200)',
          ms(restart, 0),
          '1.000',
          `${m((r) => r.restartSessionsKept)}/${results.sessions}`,
          `0/${results.servers}`,
          String(results.servers),
        ],
      ],
    ),
    '',
    `The gateway's own figure for the reload (read, diff, apply, the changed server's first try): ${ms(
      m((r) => r.reloadReportedMs),
      0,
    )} ms.`,
  ].join('\n');
}

runIfMain(import.meta.url, run, render);
