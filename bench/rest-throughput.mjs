#!/usr/bin/env node
/**
 * REST vs MCP Streamable HTTP under load: `POST /api/tools/fixture:noop` and an MCP `tools/call`
 * of the same no-op tool (`fixture__noop`) in one session, each driven by autocannon with 50
 * concurrent connections, alternating rounds so machine noise hits both alike.
 *
 *   node bench/rest-throughput.mjs [--connections 50] [--seconds 8] [--rounds 3]
 *
 * Prints a Markdown table (p50/p90/p97.5/p99 latency and requests per second per target).
 */
import autocannon from 'autocannon';
import {
  FIXTURE_CONFIG,
  GATEWAY_CLI,
  installCleanup,
  main,
  option,
  spawnTracked,
  stopChild,
  table,
  waitForStderr,
} from './lib/common.mjs';

const connections = Number(option('connections', '50'));
const seconds = Number(option('seconds', '8'));
const rounds = Number(option('rounds', '3'));

/** Opens an MCP session over plain HTTP and returns its id. */
async function openSession(base) {
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
      'mcp-session-id': session,
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  return session;
}

function load(options) {
  return new Promise((resolve, reject) => {
    autocannon({ connections, duration: seconds, ...options }, (error, result) =>
      error ? reject(error) : resolve(result),
    );
  });
}

main(async () => {
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
  const targets = {
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
          setupRequest: (request) => ({
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
  const results = { rest: [], mcp: [] };
  // Warm-up, then alternate.
  await load({ ...targets.rest, duration: 2 });
  await load({ ...targets.mcp, duration: 2 });
  for (let round = 0; round < rounds; round++) {
    for (const key of round % 2 === 0 ? ['rest', 'mcp'] : ['mcp', 'rest']) {
      const r = await load(targets[key]);
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`${key}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      results[key].push(r);
    }
  }
  await stopChild(child);
  const rows = Object.entries(results).map(([key, list]) => {
    const avg = (f) => list.reduce((sum, r) => sum + f(r), 0) / list.length;
    return [
      key === 'rest' ? 'REST `POST /api/tools/fixture:noop`' : 'MCP `tools/call fixture__noop`',
      avg((r) => r.latency.p50).toFixed(2),
      avg((r) => r.latency.p90).toFixed(2),
      avg((r) => r.latency.p97_5).toFixed(2),
      avg((r) => r.latency.p99).toFixed(2),
      Math.round(avg((r) => r.requests.average)).toString(),
    ];
  });
  process.stdout.write(
    `## REST vs MCP Streamable HTTP, ${connections} connections, ${rounds} × ${seconds} s each, alternating\n\n` +
      `${table(['target', 'p50 ms', 'p90 ms', 'p97.5 ms', 'p99 ms', 'requests/s'], rows)}\n\n` +
      '(autocannon reports p90 and p97.5, not p95; latencies are whole milliseconds.)\n',
  );
});
