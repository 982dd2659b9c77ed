#!/usr/bin/env node
import autocannon from 'autocannon';
import {
  FIXTURE_CONFIG,
  GATEWAY_CLI,
  installCleanup,
  machine,
  option,
  runIfMain,
  spawnTracked,
  stopChild,
  table,
  waitForStderr,
} from './lib/common.js';

/**
 * Targets: REST p50 ≤ MCP p50 under the same load, and REST sustains this many requests per second
 * (50 connections, on the 2-core machine of docs/PERFORMANCE.md).
 */
export const TARGET_REST_RPS = 3000;

/** Opens an MCP session over plain HTTP and returns its id. */
async function openSession(base: any) {
  const res = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'bench', version: '1' },
      },
    }),
  });
  await res.text();
  const session = res.headers.get('mcp-session-id');
  await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': session ?? '',
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  return session;
}

function load(options: any) {
  return new Promise((resolve, reject) => {
    autocannon(options, (error: any, result: any) => (error ? reject(error) : resolve(result)));
  });
}

/** The figures kept of one autocannon run. */
function keep(r: any) {
  const { p50, p90, p97_5, p99, average, max } = r.latency;
  return {
    latency: { p50, p90, p97_5, p99, mean: average, max },
    requestsPerSecond: r.requests.average,
    requests: r.requests.total,
    seconds: r.duration,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
  };
}

/** Runs the benchmark and returns its results (plain data). */
export async function run(options: any = {}) {
  const connections = options.connections ?? option('connections', 50);
  const seconds = options.seconds ?? option('seconds', 8);
  const rounds = options.rounds ?? option('rounds', 3);
  installCleanup();
  const child = spawnTracked(
    process.execPath,
    [GATEWAY_CLI, 'serve', '--port', '0', '--config', FIXTURE_CONFIG],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const { match } = await waitForStderr(child, /listening on (http:\/\/\S+)\/mcp/);
  const base = match[1];
  const session = await openSession(base);
  let id = 1;
  const targets: Record<string, any> = {
    rest: {
      url: `${base}/api/tools/fixture:noop`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    },
    mcp: {
      url: `${base}/mcp`,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-11-25',
      },
      // Unique JSON-RPC ids: responses are matched to requests by id within a session.
      requests: [
        {
          setupRequest: (request: any) => ({
            ...request,
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: id++,
              method: 'tools/call',
              params: { name: 'fixture__noop', arguments: {} },
            }),
          }),
        },
      ],
    },
  };
  const results: Record<string, any[]> = { rest: [], mcp: [] };
  try {
    // Warm-up, then alternate.
    await load({ ...targets.rest, connections, duration: 2 });
    await load({ ...targets.mcp, connections, duration: 2 });
    for (let round = 0; round < rounds; round++) {
      for (const key of round % 2 === 0 ? ['rest', 'mcp'] : ['mcp', 'rest']) {
        const r: any = await load({ ...targets[key], connections, duration: seconds });
        if (r.non2xx > 0 || r.errors > 0) throw new Error(`${key}: ${r.non2xx} non-2xx, ${r.errors} errors`);
        results[key]!.push(keep(r));
        process.stderr.write(
          `rest-throughput: round ${round + 1}/${rounds}, ${key}: ${Math.round(r.requests.average)} requests/s\n`,
        );
      }
    }
  } finally {
    await stopChild(child);
  }
  const mean = (list: any, f: any) => list.reduce((sum: any, r: any) => sum + f(r), 0) / list.length;
  const summary = Object.fromEntries(
    Object.entries<any>(results).map(([key, list]) => [
      key,
      {
        p50: mean(list, (r: any) => r.latency.p50),
        p90: mean(list, (r: any) => r.latency.p90),
        p97_5: mean(list, (r: any) => r.latency.p97_5),
        p99: mean(list, (r: any) => r.latency.p99),
        requestsPerSecond: mean(list, (r: any) => r.requestsPerSecond),
      },
    ]),
  );
  return { config: { connections, seconds, rounds }, machine: machine(), rounds: results, summary };
}

/** The results as a Markdown section. */
export function render(results: any) {
  const { connections, seconds, rounds } = results.config;
  const { rest, mcp } = results.summary;
  const rows = Object.entries<any>(results.summary).map(([key, s]) => [
    key === 'rest' ? 'REST `POST /api/tools/fixture:noop`' : 'MCP `tools/call fixture__noop`',
    s.p50.toFixed(2),
    s.p90.toFixed(2),
    s.p97_5.toFixed(2),
    s.p99.toFixed(2),
    Math.round(s.requestsPerSecond).toString(),
    results.rounds[key].map((r: any) => Math.round(r.requestsPerSecond)).join(', '),
  ]);
  const verdict = (ok: boolean) => (ok ? 'met' : 'missed');
  return [
    `## REST vs MCP Streamable HTTP, ${connections} connections, ${rounds} × ${seconds} s each, alternating`,
    '',
    table(['target', 'p50 ms', 'p90 ms', 'p97.5 ms', 'p99 ms', 'requests/s', 'requests/s by round'], rows),
    '',
    '(Means over rounds. autocannon reports p90 and p97.5, not p95; latencies are whole milliseconds.)',
    '',
    `Targets: REST p50 ≤ MCP p50 — ${rest.p50.toFixed(2)} vs ${mcp.p50.toFixed(2)} ms: **${verdict(rest.p50 <= mcp.p50)}**; ` +
      `REST ≥ ${TARGET_REST_RPS.toLocaleString('en-US')} requests/s — ${Math.round(rest.requestsPerSecond).toLocaleString('en-US')}: ` +
      `**${verdict(rest.requestsPerSecond >= TARGET_REST_RPS)}**.`,
    '',
  ].join('\n');
}

runIfMain(import.meta.url, run, render);
