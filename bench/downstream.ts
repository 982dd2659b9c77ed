#!/usr/bin/env node
/**
 * The gateway as an aggregator of downstream MCP servers: what it adds to a proxied call, how it
 * holds up under many concurrent sessions, and what 5,000 downstream tools cost in memory.
 *
 * Three parts, in one run:
 *   - latency      sequential `echo` calls to `@modelcontextprotocol/server-everything` through the
 *                  official SDK client, five variants side by side:
 *                    direct      the server itself over stdio
 *                    ap-stdio    Aperture `serve --stdio`, flat exposure (`prefix: false`: `echo`)
 *                    ap-http     Aperture `serve --port 0`, same config, Streamable HTTP
 *                    mcp-proxy   punkpeye/mcp-proxy (`--server stream`), Streamable HTTP
 *                    supergw     supergateway `--outputTransport streamableHttp --stateful`
 *                  and three references to read them against (floors, no targets):
 *                    pipe        a Node process that copies bytes both ways (a relay that parses nothing)
 *                    sdk-relay   the smallest SDK relay: a low-level Server whose handlers call a Client
 *                    sdk-http    bench/fixtures/baseline-noop-server.mjs over HTTP, `noop`, no downstream hop
 *                  Each variant has its own client and its own server process tree. After a warm-up,
 *                  measurement alternates blocks of `latency-block` calls between the variants,
 *                  rotating the order each round, so that machine noise and drift fall on all alike.
 *                  CPU per call of the client, the relay and the relay's children is read around each
 *                  measured block (process.cpuUsage, /proc/<pid>/stat).
 *                  The peers run with per-message logging and replay buffers off (`--logLevel none`,
 *                  `--no-eventStore`): Aperture keeps neither, and the peers' defaults only slow them.
 *   - load         `load-clients` SDK clients (one Streamable HTTP session each) × `load-calls`
 *                  sequential `echo` calls, all clients at once, through Aperture (flat exposure) and,
 *                  for reference, mcp-proxy, alternating round by round; every call echoes a unique
 *                  message and its answer must be exactly that message. Counts lost (error or no
 *                  answer) and mixed-up (another answer) responses; throughput over the round's wall
 *                  time; latency percentiles.
 *   - memory       Aperture with `memory-servers` stdio servers (test/fixtures/mcp/many-tools-server.mjs,
 *                  MANY_TOOLS=`memory-tools` each: that many tools plus `echo`), exposure metatools.
 *                  Timed from spawn to the "listening" line and to `/readyz` answering 200 with every
 *                  source connected and its tools counted; then the VmRSS of the gateway process alone
 *                  and, separately, the sum over its children (/proc). The same gateway with no servers
 *                  is measured first, for the per-tool difference; then, for reference, the same servers
 *                  started by the benchmark itself with one SDK client each.
 *
 * Every process started is tracked with its children; at the end the benchmark checks that none of
 * them is left (the gateway's SIGTERM ends its downstream servers) and reports any stray it had to
 * kill.
 *
 * Options (argv `--name value`, or env `BENCH_NAME`): parts (`latency,load,memory`), latency-n
 * (1000 measured calls per variant), latency-warmup (100), latency-block (100), variants (all
 * eight: `direct,pipe,sdk-relay,ap-stdio,sdk-http,ap-http,mcp-proxy,supergw`), load-clients (100),
 * load-calls (100), load-rounds (2 per target), load-targets (`aperture,mcp-proxy`), memory-servers
 * (50), memory-tools (100), json-out; `--gateway-cli FILE` measures another build (common.ts).
 * Prints a Markdown section on stdout, progress on stderr.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  BASELINE_SERVER,
  GATEWAY_CLI,
  interleavedRounds,
  machine,
  median,
  ms,
  option,
  percentile,
  ROOT,
  rssMiB,
  runIfMain,
  signed,
  spawnTracked,
  stopChild,
  summarize,
  table,
  waitForStderr,
} from './lib/common.js';
import { connectHttp, connectStdio, startHttpServer } from './lib/mcp-clients.js';
import { childPids, cpuSeconds } from './lib/proc.js';

/** What Aperture over stdio may add at p50 to a direct stdio call. */
export const TARGET_ADDED_STDIO_MS = 0.3;
/** Aperture over HTTP at p50, as a fraction of the faster of mcp-proxy and supergateway. */
export const TARGET_HTTP_RATIO = 0.6;

const EVERYTHING = path.join(
  ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'server-everything',
  'dist',
  'index.js',
);
const MCP_PROXY = path.join(ROOT, 'node_modules', 'mcp-proxy', 'dist', 'bin', 'mcp-proxy.mjs');
const SUPERGATEWAY = path.join(ROOT, 'node_modules', 'supergateway', 'dist', 'index.js');
const MANY_TOOLS_SERVER = path.join(ROOT, 'test', 'fixtures', 'mcp', 'many-tools-server.mjs');

const sleep = (msec: any) => new Promise((resolve) => setTimeout(resolve, msec));

// ---------------------------------------------------------------------------------------------
// Processes: every pid started here, and its descendants, with its start time (so that a reused
// pid is never mistaken for ours). At the end, `settleProcesses` checks that all are gone.

const known = new Map();

/** Field 22 of /proc/<pid>/stat (start time in ticks since boot), or undefined if gone. */
function startTime(pid: any) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function descendants(pid: number | undefined): number[] {
  const out: number[] = [];
  for (const child of childPids(pid)) out.push(child, ...descendants(child));
  return out;
}

/** Records a process and its current descendants; returns the descendants. */
function remember(pid: any, label: any) {
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

function commandOf(pid: any) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).slice(0, 3).join(' ');
  } catch {
    return '?';
  }
}

function alive(pid: any, info: any) {
  return startTime(pid) === info.start;
}

/** Waits for every remembered process to end; SIGKILLs and reports those that do not. */
async function settleProcesses(waitMs = 6000) {
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

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as import('node:net').AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function getJson(url: any) {
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
function writeConfigs(dir: any, { memoryServers, memoryTools }: any) {
  const everything = [
    'servers:',
    '  everything:',
    '    command: node',
    `    args: [${JSON.stringify(EVERYTHING)}, "stdio"]`,
    '    prefix: false',
    'exposure: flat',
    'tools: { builtin: false }',
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
    many: path.join(dir, 'many.yaml'),
    none: path.join(dir, 'none.yaml'),
  };
  writeFileSync(files.everything, everything);
  writeFileSync(files.many, many(memoryServers));
  writeFileSync(files.none, many(0));
  return files;
}

/** An SDK client over stdio; SIGTERM if the benchmark dies, so a gateway ends its own servers. */
const connectStdioProcess = (
  label: any,
  args: any,
  env: Record<string, string> | undefined = undefined,
  command = process.execPath,
) => connectStdio(label, args, { env, command, killSignal: 'SIGTERM' });

/** Starts an HTTP proxy (`node ...args`) on a free port; resolves once an SDK client can connect. */
async function startPeer(label: any, argsForPort: any) {
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
async function untilReady(
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
async function untilTool(client: any, name: any, timeoutMs = 30000) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const { tools } = await client.listTools();
    if (tools.some((t: any) => t.name === name)) return;
    if (performance.now() > deadline) throw new Error(`tool ${name} never appeared`);
    await sleep(50);
  }
}

const gatewayHttpArgs = (config: any) => [GATEWAY_CLI, 'serve', '--config', config, '--port', '0'];

async function echo(client: any, message: any) {
  const result = await client.callTool({ name: 'echo', arguments: { message } });
  return result.isError ? undefined : result.content?.[0]?.text;
}

function stats(samples: any) {
  const sorted = Float64Array.from(samples).sort();
  return { ...summarize(samples), p90: percentile(sorted, 90) };
}

// ---------------------------------------------------------------------------------------------
// Part 1: latency

/** Reference: a Node process that copies bytes both ways and parses nothing (the floor of a relay). */
const PIPE_RELAY = `
import { spawn } from 'node:child_process';
const child = spawn(process.execPath, process.argv.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.pipe(child.stdin);
child.stdout.pipe(process.stdout);
child.once('exit', (code) => process.exit(code ?? 0));
process.once('SIGTERM', () => { child.kill(); process.exit(0); });
`;

/** Reference: the smallest MCP relay on the SDK, a low-level Server whose handlers call a Client. */
const SDK_RELAY = `
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, CallToolResultSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
const client = new Client({ name: 'relay', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command: process.execPath, args: process.argv.slice(1), stderr: 'inherit' }));
const server = new Server({ name: 'relay', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, (request) => client.listTools(request.params));
server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
  client.request({ method: 'tools/call', params: request.params }, CallToolResultSchema, { signal: extra.signal }));
const end = async () => { await client.close(); process.exit(0); };
process.stdin.once('end', end);
process.once('SIGTERM', end);
await server.connect(new StdioServerTransport());
`;

const mcpProxyArgs = (port: any) => [
  MCP_PROXY,
  '--port',
  String(port),
  '--host',
  '127.0.0.1',
  '--server',
  'stream',
  '--no-eventStore',
  '--',
  process.execPath,
  EVERYTHING,
  'stdio',
];

const supergatewayArgs = (port: any) => [
  SUPERGATEWAY,
  '--stdio',
  `${JSON.stringify(process.execPath)} ${JSON.stringify(EVERYTHING)} stdio`,
  '--outputTransport',
  'streamableHttp',
  '--stateful',
  '--port',
  String(port),
  '--logLevel',
  'none',
];

/**
 * The variants, in the order of the tables. `reference` ones are floors to read the others
 * against, not subjects of a target. `open` resolves with the connection (and the server, for HTTP).
 */
const VARIANTS = [
  {
    key: 'direct',
    label: 'direct: server-everything over stdio',
    open: async () => ({ connection: await connectStdioProcess('direct', [EVERYTHING, 'stdio']) }),
  },
  {
    key: 'pipe',
    reference: true,
    label: 'reference: byte-copying Node relay, stdio',
    open: async () => ({
      connection: await connectStdioProcess('pipe', [
        '--input-type=module',
        '-e',
        PIPE_RELAY,
        EVERYTHING,
        'stdio',
      ]),
    }),
  },
  {
    key: 'sdk-relay',
    reference: true,
    label: 'reference: minimal SDK relay (Server → Client), stdio',
    open: async () => ({
      connection: await connectStdioProcess('sdk-relay', [
        '--input-type=module',
        '-e',
        SDK_RELAY,
        EVERYTHING,
        'stdio',
      ]),
    }),
  },
  {
    key: 'ap-stdio',
    label: 'Aperture over stdio (flat)',
    open: async (configs: any) => {
      const connection = await connectStdioProcess('ap-stdio', [
        GATEWAY_CLI,
        'serve',
        '--stdio',
        '--config',
        configs.everything,
      ]);
      await untilTool(connection.client, 'echo');
      return { connection };
    },
  },
  {
    key: 'sdk-http',
    reference: true,
    tool: 'noop',
    label: 'reference: bare SDK server over HTTP, `noop`, no downstream',
    open: async () => {
      const server = await startHttpServer([BASELINE_SERVER, '--http', '--port', '0']);
      return { server, connection: await connectHttp('sdk-http', server) };
    },
  },
  {
    key: 'ap-http',
    label: 'Aperture over Streamable HTTP (flat)',
    open: async (configs: any) => {
      const server = await startHttpServer(gatewayHttpArgs(configs.everything));
      await untilReady(server.url.replace(/\/mcp$/, ''), (r: any) => r.sources?.[0]?.state === 'connected');
      return { server, connection: await connectHttp('ap-http', server) };
    },
  },
  {
    key: 'mcp-proxy',
    label: 'mcp-proxy v6, Streamable HTTP',
    open: async () => {
      const server = await startPeer('mcp-proxy', mcpProxyArgs);
      return { server, connection: await connectHttp('mcp-proxy', server) };
    },
  },
  {
    key: 'supergw',
    label: 'supergateway v4 `--stateful`, Streamable HTTP',
    open: async () => {
      const server = await startPeer('supergw', supergatewayArgs);
      return { server, connection: await connectHttp('supergw', server) };
    },
  },
];

/** CPU seconds of the client (this process), the relay and the relay's descendants. */
function cpuNow(variant: any): Record<string, number> {
  const usage = process.cpuUsage();
  return {
    client: (usage.user + usage.system) / 1e6,
    relay: cpuSeconds(variant.pid),
    downstream: variant.downstream.reduce((sum: any, pid: any) => sum + (cpuSeconds(pid) || 0), 0),
  };
}

async function latencyBlock(variant: any, count: any, sink?: any) {
  const client = variant.connection.client;
  const cpuBefore = sink ? cpuNow(variant) : undefined;
  for (let i = 0; i < count; i++) {
    const message = `m${i}`;
    const start = performance.now();
    let ok: any;
    if (variant.tool === 'noop') {
      const result = await client.callTool({ name: 'noop', arguments: {} });
      ok = !result.isError;
    } else {
      ok = (await echo(client, message)) === `Echo: ${message}`;
    }
    const elapsed = performance.now() - start;
    if (!ok) throw new Error(`${variant.key}: unexpected answer to call ${i}`);
    sink?.push(elapsed);
  }
  if (cpuBefore) {
    const after: Record<string, number> = cpuNow(variant);
    for (const key of ['client', 'relay', 'downstream']) variant.cpu[key] += after[key]! - cpuBefore[key]!;
  }
}

async function measureLatency(configs: any, { n, warmup, blockSize, keys }: any) {
  const list = keys.map((key: any) => {
    const spec = VARIANTS.find((v) => v.key === key);
    if (!spec) throw new Error(`unknown variant ${key}; known: ${VARIANTS.map((v) => v.key).join(', ')}`);
    return { ...spec, cpu: { client: 0, relay: 0, downstream: 0 } };
  });
  try {
    for (const variant of list) {
      process.stderr.write(`  starting ${variant.key}\n`);
      Object.assign(variant, await variant.open(configs));
      // The process the client talks to (the server itself for `direct` and `sdk-http`).
      variant.pid = variant.server?.pid ?? variant.connection.pid;
      await variant.connection.client.listTools();
      await latencyBlock(variant, 1);
      // Its children (the downstream server) exist now, supergateway's per-session one included.
      variant.downstream = remember(variant.pid, variant.key);
    }
    const { samples, roundP50, seconds } = await interleavedRounds(list, {
      n,
      warmup,
      blockSize,
      block: latencyBlock,
      onRound: (r, rounds) => process.stderr.write(`  latency: round ${r}/${rounds}\r`),
    });
    process.stderr.write('\n');
    const perCall = (seconds: any) => (seconds * 1000) / n;
    const result: Record<string, any> = {
      variants: Object.fromEntries(
        list.map((v: any) => [
          v.key,
          {
            label: v.label,
            reference: v.reference === true,
            stats: stats(samples[v.key]),
            cpuMsPerCall: {
              client: perCall(v.cpu.client),
              relay: perCall(v.cpu.relay),
              downstream: perCall(v.cpu.downstream),
            },
            rssMiB: {
              relay: rssMiB(v.pid),
              downstream: v.downstream.reduce((sum: any, pid: any) => sum + (rssMiB(pid) || 0), 0),
              processes: v.downstream.length,
            },
          },
        ]),
      ),
      roundP50,
      rounds: Math.ceil(n / blockSize),
      seconds,
    };
    const s = Object.fromEntries(Object.entries<any>(result.variants).map(([k, v]) => [k, v.stats]));
    if (s.direct && s['ap-stdio']) {
      result.addedStdio = {
        p50: s['ap-stdio'].p50 - s.direct.p50,
        p90: s['ap-stdio'].p90 - s.direct.p90,
        paired: median(roundP50['ap-stdio']!.map((v, i) => v - roundP50.direct![i]!)),
      };
    }
    const peers = ['mcp-proxy', 'supergw'].filter((k) => s[k]);
    if (s['ap-http'] && peers.length > 0) {
      const fastest = peers.reduce((a, b) => (s[a].p50 <= s[b].p50 ? a : b));
      result.httpRatio = {
        fastestPeer: fastest,
        p50: s['ap-http'].p50 / s[fastest].p50,
        p90: s['ap-http'].p90 / Math.min(...peers.map((k) => s[k].p90)),
        // Per round: Aperture's block median over the faster peer's block median of that round.
        paired: median(
          roundP50['ap-http']!.map((v, i) => v / Math.min(...peers.map((k) => roundP50[k]![i]!))),
        ),
      };
    }
    return result;
  } finally {
    for (const variant of list) {
      if (variant.pid) remember(variant.pid, variant.key);
      await variant.connection?.close();
      await variant.server?.stop();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Part 2: many concurrent sessions

async function loadRound(target: any, server: any, { clients, calls, round }: any) {
  const connections = await Promise.all(
    Array.from({ length: clients }, (_, i) => connectHttp(`${target}-load-${i}`, server)),
  );
  const relay = { pid: server.pid, downstream: remember(server.pid, target) };
  const latencies: any = [];
  const failures: {
    lost: number;
    mixed: number;
    crossed: number;
    examples: string[];
    causes: Record<string, number>;
  } = { lost: 0, mixed: 0, crossed: 0, examples: [], causes: {} };
  // Every message of the round, so that a wrong answer can be told apart from someone else's.
  const sent = new Set();
  const tag = `${target}-r${round}-${process.pid}`;
  try {
    // One untimed call per client: the sessions exist, nothing is cold.
    await Promise.all(connections.map((c, i) => echo(c.client, `warm-${tag}-${i}`)));
    const cpuBefore: Record<string, number> = cpuNow(relay);
    const started = performance.now();
    await Promise.all(
      connections.map(async (connection, c) => {
        for (let j = 0; j < calls; j++) {
          const message = `${tag}-c${c}-m${j}-${Math.random().toString(36).slice(2, 10)}`;
          sent.add(message);
          const start = performance.now();
          let text: any;
          try {
            text = await echo(connection.client, message);
          } catch (error: any) {
            failures.lost++;
            const cause = error.cause ? ` (${error.cause.code ?? ''} ${error.cause.message ?? ''})` : '';
            failures.causes[`${error.message}${cause}`] =
              (failures.causes[`${error.message}${cause}`] ?? 0) + 1;
            if (failures.examples.length < 5) failures.examples.push(`lost: ${error.message}${cause}`);
            continue;
          }
          latencies.push(performance.now() - start);
          if (text === undefined) {
            failures.lost++;
          } else if (text !== `Echo: ${message}`) {
            failures.mixed++;
            if (sent.has(String(text).replace(/^Echo: /, ''))) failures.crossed++;
            if (failures.examples.length < 5) failures.examples.push(`mixed: sent ${message}, got ${text}`);
          }
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const cpuAfter: Record<string, number> = cpuNow(relay);
    const total = clients * calls;
    const perCall = (key: any) => ((cpuAfter[key]! - cpuBefore[key]!) * 1000) / total;
    return {
      calls: total,
      answered: latencies.length,
      ...failures,
      seconds,
      perSecond: total / seconds,
      latency: stats(latencies),
      cpuMsPerCall: { client: perCall('client'), relay: perCall('relay'), downstream: perCall('downstream') },
      relayRssMiB: rssMiB(server.pid),
    };
  } finally {
    await Promise.all(connections.map((c) => c.close()));
  }
}

async function measureLoad(configs: any, { clients, calls, rounds, targets }: any) {
  const servers: Record<string, any> = {};
  try {
    for (const target of targets) {
      if (target === 'aperture') {
        servers[target] = await startHttpServer(gatewayHttpArgs(configs.everything));
        await untilReady(
          servers[target].url.replace(/\/mcp$/, ''),
          (r: any) => r.sources?.[0]?.state === 'connected',
        );
      } else if (target === 'mcp-proxy') {
        servers[target] = await startPeer(target, mcpProxyArgs);
      } else {
        throw new Error(`load target ${target}: aperture or mcp-proxy`);
      }
      remember(servers[target].pid, target);
    }
    const results = Object.fromEntries(targets.map((t: any) => [t, []]));
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? targets : [...targets].reverse();
      for (const target of order) {
        process.stderr.write(
          `  load: ${target}, round ${r + 1}/${rounds}, ${clients} clients × ${calls} calls\n`,
        );
        results[target].push(await loadRound(target, servers[target], { clients, calls, round: r }));
      }
    }
    return results;
  } finally {
    for (const server of Object.values<any>(servers)) {
      remember(server.pid, 'load');
      await server.stop();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Part 3: memory with many downstream servers

async function memoryRun(config: any, servers: any) {
  const start = performance.now();
  const child = spawnTracked(process.execPath, gatewayHttpArgs(config), { cwd: ROOT }, 'SIGTERM');
  child.stdout?.resume();
  const stop = () => stopChild(child, 10000);
  try {
    const { match, at: listening } = await waitForStderr(child, /listening on (http:\/\/\S+)/, 60000);
    const base = match[1]!.replace(/\/mcp$/, '');
    const { at: ready, readiness } = await untilReady(base, (r: any) => {
      const sources = r.sources ?? [];
      return sources.length === servers && sources.every((s: any) => s.state === 'connected' && s.tools > 0);
    });
    const tree = remember(child.pid, `memory-${servers}`);
    const children = () => tree.reduce((sum: any, pid: any) => sum + (rssMiB(pid) || 0), 0);
    const atReady = { gateway: rssMiB(child.pid), children: children() };
    await sleep(2000);
    const settled = { gateway: rssMiB(child.pid), children: children() };
    // One search over the whole catalog (the index is built on first use), through a client.
    const connection = await connectHttp('memory', { url: match[1]!, pid: child.pid });
    let afterSearch: any;
    let searchMs: any;
    let warmSearchMs: any;
    try {
      const t0 = performance.now();
      const result = await connection.client.callTool({
        name: 'search_tools',
        arguments: { query: 'export invoices to a file' },
      });
      searchMs = performance.now() - t0;
      if (result.isError) throw new Error(`search_tools failed: ${JSON.stringify(result).slice(0, 500)}`);
      const t1 = performance.now();
      await connection.client.callTool({ name: 'search_tools', arguments: { query: 'archive old records' } });
      warmSearchMs = performance.now() - t1;
      await sleep(1000);
      afterSearch = { gateway: rssMiB(child.pid), children: children() };
    } finally {
      await connection.close();
    }
    const sources = readiness.sources ?? [];
    return {
      servers,
      connected: sources.filter((s: any) => s.state === 'connected').length,
      sourceTools: sources.reduce((sum: any, s: any) => sum + s.tools, 0),
      catalogTools: readiness.tools,
      toolsPerSource: [...new Set(sources.map((s: any) => s.tools))],
      listeningMs: listening - start,
      readyMs: ready - start,
      childProcesses: tree.length,
      rssMiB: { atReady, settled, afterSearch },
      firstSearchMs: searchMs,
      warmSearchMs,
    };
  } finally {
    remember(child.pid, `memory-${servers}`);
    await stop();
  }
}

/**
 * Reference for the memory part: the same servers started by this process, each with an SDK client
 * over stdio and in a session of its own like the gateway's, all at once; timed until every one has
 * listed its tools. This is what starting them costs on the machine, without a gateway.
 */
async function directServers(servers: any, tools: any) {
  const start = performance.now();
  const settled = await Promise.allSettled(
    Array.from({ length: servers }, async (_, i) => {
      // setsid: a session of its own, as the gateway starts its servers (`detached`); with the
      // scheduler's autogroups, that decides how much of the CPU a starting server gets.
      const connection = await connectStdioProcess(
        `many${i}`,
        [process.execPath, MANY_TOOLS_SERVER],
        { MANY_TOOLS: String(tools) },
        'setsid',
      );
      remember(connection.pid, 'memory-direct');
      const { tools: listed } = await connection.client.listTools();
      return { connection, tools: listed.length };
    }),
  );
  const readyMs = performance.now() - start;
  const ok = settled.filter((r) => r.status === 'fulfilled').map((r) => r.value);
  try {
    if (ok.length < servers) {
      const failure = settled.find((r) => r.status === 'rejected');
      throw new Error(`${servers - ok.length} of ${servers} servers failed to start: ${failure?.reason}`);
    }
    return {
      servers,
      tools: ok.reduce((sum, r) => sum + r.tools, 0),
      readyMs,
      rssMiB: ok.reduce((sum, r) => sum + (rssMiB(r.connection.pid) || 0), 0),
    };
  } finally {
    await Promise.all(ok.map((r) => r.connection.close()));
  }
}

async function measureMemory(configs: any, { servers, tools }: any) {
  process.stderr.write('  memory: gateway with no servers\n');
  const none = await memoryRun(configs.none, 0);
  process.stderr.write(`  memory: gateway with ${servers} servers\n`);
  const many = await memoryRun(configs.many, servers);
  process.stderr.write(`  memory: reference, ${servers} servers started directly\n`);
  const direct = await directServers(servers, tools);
  return { none, many, direct };
}

// ---------------------------------------------------------------------------------------------

export async function run(options: any = {}) {
  const parts = (options.parts ?? option('parts', 'latency,load,memory')).split(',').filter(Boolean);
  const config = {
    parts,
    latency: {
      n: options.latencyN ?? option('latency-n', 1000),
      warmup: options.latencyWarmup ?? option('latency-warmup', 100),
      blockSize: options.latencyBlock ?? option('latency-block', 100),
      keys: (options.variants ?? option('variants', VARIANTS.map((v) => v.key).join(',')))
        .split(',')
        .filter(Boolean),
    },
    load: {
      clients: options.loadClients ?? option('load-clients', 100),
      calls: options.loadCalls ?? option('load-calls', 100),
      rounds: options.loadRounds ?? option('load-rounds', 2),
      targets: (options.loadTargets ?? option('load-targets', 'aperture,mcp-proxy'))
        .split(',')
        .filter(Boolean),
    },
    memory: {
      servers: options.memoryServers ?? option('memory-servers', 50),
      tools: options.memoryTools ?? option('memory-tools', 100),
    },
  };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'aperture-bench-downstream-'));
  const configs = writeConfigs(dir, {
    memoryServers: config.memory.servers,
    memoryTools: config.memory.tools,
  });
  const results: Record<string, any> = { config, machine: machine() };
  try {
    if (parts.includes('latency')) {
      const { n, warmup, keys } = config.latency;
      process.stderr.write(
        `downstream: latency, ${n} echo calls × ${keys.length} variants after ${warmup} warm-up\n`,
      );
      results.latency = await measureLatency(configs, config.latency);
    }
    if (parts.includes('load')) {
      process.stderr.write('downstream: concurrent sessions\n');
      results.load = await measureLoad(configs, config.load);
    }
    if (parts.includes('memory')) {
      process.stderr.write(
        `downstream: memory, ${config.memory.servers} servers × ${config.memory.tools} tools\n`,
      );
      results.memory = await measureMemory(configs, config.memory);
    }
  } finally {
    results.processes = await settleProcesses();
    rmSync(dir, { recursive: true, force: true });
  }
  if (results.processes.strays.length > 0) {
    process.stderr.write(`downstream: killed ${results.processes.strays.length} stray processes\n`);
  }
  return results;
}

const verdict = (ok: any) => (ok ? '**met**' : '**missed**');
const mib = (v: any) => (Number.isFinite(v) ? v.toFixed(1) : 'n/a');

/** The results as a Markdown section. */
export function render(results: any) {
  const out = ['## Downstream MCP servers (aggregation)', ''];
  const lat = results.latency;
  if (lat) {
    const { n, warmup, blockSize } = results.config.latency;
    const direct = lat.variants.direct?.stats;
    out.push(
      '### Latency: `echo` on server-everything',
      '',
      `${n} sequential calls per variant after ${warmup} warm-up, interleaved in ${lat.rounds} rounds of ` +
        `${blockSize} with the order rotating; official SDK client; times in ms. CPU per call (from ` +
        '/proc and `process.cpuUsage`, over the measured blocks): the client (this process), the relay the ' +
        'client talks to (the server itself for `direct` and the bare SDK server), and its children (the ' +
        'downstream server). RSS after the run, in MiB.',
      '',
      table(
        [
          'variant',
          'p50',
          'p90',
          'p99',
          'mean',
          'p50 vs direct',
          'CPU ms/call: client / relay / downstream',
          'RSS: relay / downstream',
        ],
        Object.values<any>(lat.variants).map((v) => [
          v.label,
          ms(v.stats.p50),
          ms(v.stats.p90),
          ms(v.stats.p99),
          ms(v.stats.mean),
          direct ? `${(v.stats.p50 / direct.p50).toFixed(2)}×` : '—',
          `${ms(v.cpuMsPerCall.client)} / ${ms(v.cpuMsPerCall.relay)} / ` +
            (v.rssMiB.processes > 0 ? ms(v.cpuMsPerCall.downstream) : '—'),
          `${mib(v.rssMiB.relay)} / ${v.rssMiB.processes > 0 ? mib(v.rssMiB.downstream) : '—'}`,
        ]),
      ),
      '',
    );
    if (lat.addedStdio) {
      const a = lat.addedStdio;
      out.push(
        `Aperture over stdio adds ${signed(a.p50)} ms at p50 over the direct call (paired by round ` +
          `${signed(a.paired)} ms; at p90 ${signed(a.p90)} ms). Target ≤ ${TARGET_ADDED_STDIO_MS} ms: ` +
          `${verdict(a.p50 <= TARGET_ADDED_STDIO_MS)}.`,
        '',
      );
    }
    if (lat.httpRatio) {
      const h = lat.httpRatio;
      out.push(
        `Aperture over HTTP at p50 is ${h.p50.toFixed(2)}× the faster peer (${lat.variants[h.fastestPeer].label}); ` +
          `paired by round ${h.paired.toFixed(2)}×; at p90 ${h.p90.toFixed(2)}×. Target ≤ ${TARGET_HTTP_RATIO}×: ` +
          `${verdict(h.p50 <= TARGET_HTTP_RATIO)}.`,
        '',
      );
    }
  }
  const load = results.load;
  if (load) {
    const { clients, calls } = results.config.load;
    out.push(
      '### Concurrent sessions',
      '',
      `${clients} SDK clients, one Streamable HTTP session each, × ${calls} sequential \`echo\` calls, all ` +
        'at once; each message unique, each answer checked. Latency in ms. CPU per call as above: client ' +
        '(all clients share this process) / relay / downstream.',
      '',
      table(
        [
          'target',
          'round',
          'calls',
          'lost',
          'mixed up',
          'calls/s',
          'p50',
          'p90',
          'p99',
          'max',
          'CPU ms/call: client / relay / downstream',
          'relay RSS MiB',
        ],
        Object.entries<any>(load).flatMap(([target, rounds]) =>
          rounds.map((r: any, i: any) => [
            target === 'aperture' ? 'Aperture (flat)' : target,
            String(i + 1),
            r.calls.toLocaleString('en-US'),
            String(r.lost),
            r.crossed > 0 ? `${r.mixed} (${r.crossed} another call's)` : String(r.mixed),
            r.perSecond.toFixed(0),
            ms(r.latency.p50, 2),
            ms(r.latency.p90, 2),
            ms(r.latency.p99, 2),
            ms(r.latency.max, 1),
            `${ms(r.cpuMsPerCall.client)} / ${ms(r.cpuMsPerCall.relay)} / ${ms(r.cpuMsPerCall.downstream)}`,
            mib(r.relayRssMiB),
          ]),
        ),
      ),
      '',
    );
    const ap = load.aperture ?? [];
    const bad = ap.reduce((sum: any, r: any) => sum + r.lost + r.mixed, 0);
    out.push(`Aperture: ${bad} lost or mixed-up responses (target 0: ${verdict(bad === 0)}).`, '');
    for (const [target, rounds] of Object.entries<any>(load)) {
      rounds.forEach((r: any, i: any) => {
        const causes = Object.entries<any>(r.causes ?? {});
        if (causes.length > 0) {
          out.push(
            `${target}, round ${i + 1}, failed calls: ${causes.map(([c, k]) => `${k}× ${c}`).join('; ')}`,
            '',
          );
        }
        const mixed = r.examples.filter((e: any) => e.startsWith('mixed'));
        if (mixed.length > 0) out.push(`${target}, round ${i + 1}, mixed up: ${mixed.join('; ')}`, '');
      });
    }
  }
  const mem = results.memory;
  if (mem) {
    const rows = [mem.none, mem.many].map((m) => [
      m.servers === 0 ? 'no servers' : `${m.servers} servers`,
      `${m.connected} / ${m.sourceTools.toLocaleString('en-US')}`,
      ms(m.listeningMs, 0),
      ms(m.readyMs, 0),
      mib(m.rssMiB.atReady.gateway),
      mib(m.rssMiB.settled.gateway),
      mib(m.rssMiB.afterSearch.gateway),
      `${ms(m.firstSearchMs, 0)} / ${ms(m.warmSearchMs, 1)}`,
      m.childProcesses > 0
        ? `${mib(m.rssMiB.settled.children)} (${m.childProcesses}; ${mib(m.rssMiB.settled.children / m.childProcesses)} each)`
        : '—',
    ]);
    const perTool =
      ((mem.many.rssMiB.settled.gateway - mem.none.rssMiB.settled.gateway) * 1024) / mem.many.sourceTools;
    out.push(
      '### Memory with many downstream servers',
      '',
      `Aperture, exposure metatools, ${mem.many.servers} stdio servers of many-tools-server ` +
        `(MANY_TOOLS=${results.config.memory.tools}: ${mem.many.toolsPerSource.join('/')} tools each). ` +
        'Times from spawn; ready = `/readyz` 200 with every source connected. RSS is VmRSS in MiB: the ' +
        'gateway process alone, and the sum over its children apart.',
      '',
      table(
        [
          'gateway',
          'sources connected / tools',
          '"listening" ms',
          'ready ms',
          'gateway RSS at ready',
          'gateway RSS +2 s',
          'gateway RSS after first search',
          '`search_tools` ms: first / second',
          'children RSS (count)',
        ],
        rows,
      ),
      '',
      `Gateway RSS with ${mem.many.sourceTools.toLocaleString('en-US')} downstream tools minus with none: ` +
        `${signed(mem.many.rssMiB.settled.gateway - mem.none.rssMiB.settled.gateway, 1)} MiB ` +
        `(${perTool.toFixed(1)} KiB per tool, connections included).`,
      '',
    );
    const d = mem.direct;
    if (d) {
      out.push(
        `Reference: the same ${d.servers} servers started by the benchmark itself (one SDK client each, each ` +
          `in a session of its own as the gateway starts them), all at once, listed ${d.tools.toLocaleString('en-US')} tools ${ms(d.readyMs, 0)} ms after the first spawn ` +
          `(the gateway: ${ms(mem.many.readyMs, 0)} ms to ready); their RSS ${mib(d.rssMiB)} MiB in all.`,
        '',
      );
    }
  }
  const p = results.processes;
  out.push(
    p.strays.length === 0
      ? `Processes: all ${p.tracked} processes started (relays and their children) had ended at the finish.`
      : `Processes: ${p.strays.length} of ${p.tracked} were still alive at the finish and were killed: ` +
          p.strays.map((s: any) => `${s.pid} (${s.label}: ${s.command})`).join(', '),
    '',
  );
  return out.join('\n');
}

runIfMain(import.meta.url, run, render);
