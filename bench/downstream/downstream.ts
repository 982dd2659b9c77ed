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
 *                  and references to read them against (floors, no targets):
 *                    pipe        a Node process that copies bytes both ways (a relay that parses nothing;
 *                                fixtures/pipe-relay.mjs)
 *                    sdk-relay   the smallest SDK relay: a low-level Server whose handlers call a Client
 *                                (fixtures/sdk-relay.mjs); sdk-relay-v2 the same on the SDK v2, the
 *                                SDK the gateway runs (fixtures/sdk-relay-v2.mjs)
 *                    sdk-http    bench/fixtures/baseline-noop-server.mjs over HTTP, `noop`, no downstream hop
 *                    http-floor  fixed JSON-RPC answers over node:http, no MCP, no downstream: what the
 *                                client and HTTP cost (fixtures/http-floor.mjs); http-floor26 on 2026-07-28
 *                    sdk-http-relay  the smallest relay on the SDK v2 over Streamable HTTP
 *                                (fixtures/sdk-http-relay.mjs); sdk-http-relay26 on 2026-07-28
 *                  Over stdio each is read against the direct call, over HTTP against the faster peer.
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
 * (1000 measured calls per variant), latency-warmup (100), latency-block (100), variants (all of
 * them by default; keys in variants.ts), load-clients (100),
 * load-calls (100), load-rounds (2 per target), load-targets (`aperture,supergw,mcp-proxy`; `aperture-cmp` adds
 * the `--compare-cli` build, `sdk-relay` the smallest relay on the SDK v2), memory-servers
 * (50), memory-tools (100), json-out; `--gateway-cli FILE` measures another build (common.ts).
 * Prints a Markdown section on stdout, progress on stderr.
 *
 * The parts live beside this entry: support.ts (servers, peers, process bookkeeping), variants.ts,
 * latency.ts, load.ts, memory.ts; the reference relays are plain JavaScript child programs in
 * fixtures/, run by node as before.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { machine, ms, option, runIfMain, signed, table } from '../lib/common.js';
import { measureLatency } from './latency.js';
import { measureLoad, TARGET_LOAD_P95_RATIO, TARGET_LOAD_THROUGHPUT_RATIO } from './load.js';
import { measureMemory } from './memory.js';
import { settleProcesses, TARGET_ADDED_STDIO_MS, TARGET_HTTP_RATIO, writeConfigs } from './support.js';
import { VARIANTS } from './variants.js';

// run-all reads the targets from this entry module.
export { TARGET_ADDED_STDIO_MS, TARGET_HTTP_RATIO, TARGET_LOAD_P95_RATIO, TARGET_LOAD_THROUGHPUT_RATIO };

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
      targets: (options.loadTargets ?? option('load-targets', 'aperture,supergw,mcp-proxy'))
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

const verdict = (ok: boolean) => (ok ? '**met**' : '**missed**');
const mib = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : 'n/a');

/** A reference variant's note, or the target's verdict for a variant measured against it. */
function referenceOrTarget(variant: any, target: string, met: boolean): string {
  if (variant.reference) return ` (Reference: ${variant.note ?? 'not a subject of the target'}.)`;
  return ` Target ${target}: ${verdict(met)}.`;
}

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
    for (const [key, a] of Object.entries<any>(lat.addedStdio ?? {})) {
      const variant = lat.variants[key];
      out.push(
        `${variant.label} adds ${signed(a.p50)} ms at p50 over the direct call (paired by round ` +
          `${signed(a.paired)} ms; at p90 ${signed(a.p90)} ms).` +
          referenceOrTarget(variant, `≤ ${TARGET_ADDED_STDIO_MS} ms`, a.p50 <= TARGET_ADDED_STDIO_MS),
        '',
      );
    }
    for (const [key, h] of Object.entries<any>(lat.httpRatio ?? {})) {
      const variant = lat.variants[key];
      out.push(
        `${variant.label} at p50 is ${h.p50.toFixed(2)}× the faster peer (${lat.variants[h.fastestPeer].label}); ` +
          `paired by round ${h.paired.toFixed(2)}×; at p90 ${h.p90.toFixed(2)}×.` +
          referenceOrTarget(variant, `≤ ${TARGET_HTTP_RATIO}×`, h.p50 <= TARGET_HTTP_RATIO),
        '',
      );
    }
  }
  const load = results.load?.rounds;
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
          'p95',
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
            ms(r.latency.p95, 2),
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
    const vs = results.load.vsSupergateway;
    if (vs) {
      out.push(
        `Against supergateway (stateful), round by round, median: throughput ${vs.throughput.toFixed(2)}× ` +
          `(target ≥ ${TARGET_LOAD_THROUGHPUT_RATIO}×: ${verdict(vs.throughput >= TARGET_LOAD_THROUGHPUT_RATIO)}), ` +
          `p95 ${vs.p95.toFixed(2)}× (target ≤ ${TARGET_LOAD_P95_RATIO}×: ${verdict(vs.p95 <= TARGET_LOAD_P95_RATIO)}); ` +
          `failed calls: Aperture ${vs.failed}, supergateway ${vs.peerFailed}.`,
        '',
      );
    }
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
