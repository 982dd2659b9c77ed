/** The downstream benchmark's shared pieces: the servers and peers it runs, process bookkeeping, small HTTP and MCP helpers. */

import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { GATEWAY_CLI, percentile, ROOT, spawnTracked, stopChild, summarize } from '../lib/common.js';
import { connectHttp, connectStdio } from '../lib/mcp-clients.js';
import { childPids } from '../lib/proc.js';

/** What Aperture over stdio may add at p50 to a direct stdio call. */
export const TARGET_ADDED_STDIO_MS = 0.3;
/** Aperture over HTTP at p50, as a fraction of the faster of mcp-proxy and supergateway. */
export const TARGET_HTTP_RATIO = 0.6;

export const EVERYTHING = path.join(
  ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'server-everything',
  'dist',
  'index.js',
);
export const MCP_PROXY = path.join(ROOT, 'node_modules', 'mcp-proxy', 'dist', 'bin', 'mcp-proxy.mjs');
export const SUPERGATEWAY = path.join(ROOT, 'node_modules', 'supergateway', 'dist', 'index.js');
export const MANY_TOOLS_SERVER = path.join(ROOT, 'test', 'fixtures', 'mcp', 'many-tools-server.mjs');

export const sleep = (msec: number) => new Promise((resolve) => setTimeout(resolve, msec));

// ---------------------------------------------------------------------------------------------
// Processes: every pid started here, and its descendants, with its start time (so that a reused
// pid is never mistaken for ours). At the end, `settleProcesses` checks that all are gone.

export const known = new Map();

/** Field 22 of /proc/<pid>/stat (start time in ticks since boot), or undefined if gone. */
export function startTime(pid: number | undefined) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

export function descendants(pid: number | undefined): number[] {
  const out: number[] = [];
  for (const child of childPids(pid)) out.push(child, ...descendants(child));
  return out;
}

/** Records a process and its current descendants; returns the descendants. */
export function remember(pid: number | undefined, label: string) {
  if (!pid) return [];
  const tree = descendants(pid);
  for (const p of [pid, ...tree]) {
    if (!known.has(p)) {
      const start = startTime(p);
      if (start !== undefined) known.set(p, { label, start, command: commandOf(p) });
    }
  }
  return tree;
}

export function commandOf(pid: number | undefined) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).slice(0, 3).join(' ');
  } catch {
    return '?';
  }
}

export function alive(pid: number | undefined, info: any) {
  return startTime(pid) === info.start;
}

/** Waits for every remembered process to end; SIGKILLs and reports those that do not. */
export async function settleProcesses(waitMs = 6000) {
  const deadline = performance.now() + waitMs;
  let left = [...known].filter(([pid, info]) => alive(pid, info));
  while (left.length > 0 && performance.now() < deadline) {
    await sleep(100);
    left = left.filter(([pid, info]) => alive(pid, info));
  }
  for (const [pid] of left) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  }
  return {
    tracked: known.size,
    strays: left.map(([pid, info]) => ({ pid, label: info.label, command: info.command })),
  };
}

// ---------------------------------------------------------------------------------------------
// Servers and clients

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as import('node:net').AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export function getJson(url: string) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        body += chunk;
      });
      res.on('end', () => {
        let json: any;
        try {
          json = JSON.parse(body);
        } catch {}
        resolve({ status: res.statusCode, json });
      });
    });
    req.on('error', reject);
  });
}

/** A temp dir with the gateway configs. */
export function writeConfigs(dir: string, { memoryServers, memoryTools }: any) {
  const everything = [
    'servers:',
    '  everything:',
    '    command: node',
    `    args: [${JSON.stringify(EVERYTHING)}, "stdio"]`,
    '    prefix: false',
    'exposure: flat',
    'tools: { builtin: false }',
    // Every load client comes from 127.0.0.1, with a POST and a GET stream each: the per-address
    // cap (meant for unauthenticated clients from one address) would refuse the 100-session load.
    'http: { maxConnectionsPerAddress: 1024 }',
    '',
  ].join('\n');
  const many = (servers: any) =>
    [
      servers > 0 ? 'servers:' : 'servers: {}',
      ...Array.from({ length: servers }, (_, i) =>
        [
          `  many${i}:`,
          '    command: node',
          `    args: [${JSON.stringify(MANY_TOOLS_SERVER)}]`,
          `    env: { MANY_TOOLS: "${memoryTools}" }`,
        ].join('\n'),
      ),
      'exposure: metatools',
      'tools: { builtin: false }',
      '',
    ].join('\n');
  const files = {
    everything: path.join(dir, 'everything.yaml'),
    everythingMeta: path.join(dir, 'everything-meta.yaml'),
    many: path.join(dir, 'many.yaml'),
    none: path.join(dir, 'none.yaml'),
  };
  writeFileSync(files.everything, everything);
  // The same server behind the metatools, for `run_tool`.
  writeFileSync(files.everythingMeta, everything.replace('exposure: flat', 'exposure: metatools'));
  writeFileSync(files.many, many(memoryServers));
  writeFileSync(files.none, many(0));
  return files;
}

/** An SDK client over stdio; SIGTERM if the benchmark dies, so a gateway ends its own servers. */
export const connectStdioProcess = (
  label: string,
  args: any,
  env: Record<string, string> | undefined = undefined,
  command = process.execPath,
) => connectStdio(label, args, { env, command, killSignal: 'SIGTERM' });

/** Starts an HTTP proxy (`node ...args`) on a free port; resolves once an SDK client can connect. */
export async function startPeer(label: string, argsForPort: any) {
  const port = await freePort();
  const child = spawnTracked(process.execPath, argsForPort(port), { cwd: ROOT }, 'SIGTERM');
  child.stdout?.resume();
  child.stderr?.resume();
  const server = {
    url: `http://127.0.0.1:${port}/mcp`,
    pid: child.pid,
    child,
    stop: () => stopChild(child, 5000),
  };
  const deadline = performance.now() + 30000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${label} exited (${child.exitCode})`);
    try {
      // Probe with a real MCP session: the port answering is not enough for a proxy whose
      // downstream is still starting.
      const probe = await connectHttp(`${label}-probe`, server);
      await probe.close();
      return server;
    } catch (error: any) {
      if (performance.now() > deadline) {
        await server.stop();
        throw new Error(`${label} never accepted an MCP session: ${error.message}`);
      }
      await sleep(100);
    }
  }
}

/** Polls Aperture's /readyz until it answers 200 and `accept(json)` holds. */
export async function untilReady(
  baseUrl: any,
  accept: (readiness: any) => boolean = () => true,
  timeoutMs = 120000,
) {
  const deadline = performance.now() + timeoutMs;
  let last: any;
  for (;;) {
    last = await getJson(`${baseUrl}/readyz`).catch((error) => ({ status: 0, error: error.message }));
    if (last.status === 200 && accept(last.json)) return { at: performance.now(), readiness: last.json };
    if (performance.now() > deadline) {
      throw new Error(
        `${baseUrl}/readyz not ready in ${timeoutMs} ms: ${JSON.stringify(last).slice(0, 2000)}`,
      );
    }
    await sleep(20);
  }
}

/** Polls tools/list until `name` is there (a stdio gateway connects its servers in the background). */
export async function untilTool(client: any, name: string, timeoutMs = 30000) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const { tools } = await client.listTools();
    if (tools.some((t: any) => t.name === name)) return;
    if (performance.now() > deadline) throw new Error(`tool ${name} never appeared`);
    await sleep(50);
  }
}

export const gatewayHttpArgs = (config: any) => [GATEWAY_CLI, 'serve', '--config', config, '--port', '0'];

export async function echo(client: any, message: string, via: 'flat' | 'run_tool' = 'flat') {
  const result =
    via === 'run_tool'
      ? await client.callTool({
          name: 'run_tool',
          arguments: { tool_id: 'everything:echo', args: { message } },
        })
      : await client.callTool({ name: 'echo', arguments: { message } });
  return result.isError ? undefined : result.content?.[0]?.text;
}

export function stats(samples: number[]) {
  const sorted = Float64Array.from(samples).sort();
  return { ...summarize(samples), p90: percentile(sorted, 90) };
}
