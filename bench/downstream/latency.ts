/** Part 1 of the downstream benchmark: sequential calls through every variant, interleaved. */
import { interleavedRounds, median, rssMiB } from '../lib/common.js';
import { cpuSeconds } from '../lib/proc.js';
import { echo, remember, stats } from './support.js';
import { HTTP_FLOORS, HTTP_SUBJECTS, STDIO_REFERENCES, STDIO_SUBJECTS, VARIANTS } from './variants.js';

// ---------------------------------------------------------------------------------------------
// Part 1: latency

/** CPU seconds of the client (this process), the relay and the relay's descendants. */
export function cpuNow(variant: any): Record<string, number> {
  const usage = process.cpuUsage();
  return {
    client: (usage.user + usage.system) / 1e6,
    relay: cpuSeconds(variant.pid),
    downstream: variant.downstream.reduce(
      (sum: any, pid: number | undefined) => sum + (cpuSeconds(pid) || 0),
      0,
    ),
  };
}

export async function latencyBlock(variant: any, count: number, sink?: any) {
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
      ok =
        (await echo(client, message, variant.tool === 'run_tool' ? 'run_tool' : 'flat')) ===
        `Echo: ${message}`;
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

export async function measureLatency(configs: any, { n, warmup, blockSize, keys }: any) {
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
    const perCall = (seconds: number) => (seconds * 1000) / n;
    const result: Record<string, any> = {
      variants: Object.fromEntries(
        list.map((v: any) => [
          v.key,
          {
            label: v.label,
            reference: v.reference === true,
            note: v.note,
            stats: stats(samples[v.key]!),
            cpuMsPerCall: {
              client: perCall(v.cpu.client),
              relay: perCall(v.cpu.relay),
              downstream: perCall(v.cpu.downstream),
            },
            rssMiB: {
              relay: rssMiB(v.pid),
              downstream: v.downstream.reduce(
                (sum: any, pid: number | undefined) => sum + (rssMiB(pid) || 0),
                0,
              ),
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
    // What each Aperture variant over stdio adds to the direct call, and each over HTTP against the
    // faster peer; the `-cmp` variants of an earlier build alike.
    result.addedStdio = {};
    const againstDirect = [...STDIO_SUBJECTS, ...STDIO_REFERENCES];
    for (const key of Object.keys(s).filter((k) => againstDirect.includes(k.replace(/-cmp$/, '')))) {
      if (!s.direct) break;
      result.addedStdio[key] = {
        p50: s[key].p50 - s.direct.p50,
        p90: s[key].p90 - s.direct.p90,
        paired: median(roundP50[key]!.map((v, i) => v - roundP50.direct![i]!)),
      };
    }
    const peers = ['mcp-proxy', 'supergw'].filter((k) => s[k]);
    result.httpRatio = {};
    const againstPeer = [...HTTP_SUBJECTS, ...HTTP_FLOORS];
    for (const key of Object.keys(s).filter((k) => againstPeer.includes(k.replace(/-cmp$/, '')))) {
      if (peers.length === 0) break;
      const fastest = peers.reduce((a, b) => (s[a].p50 <= s[b].p50 ? a : b));
      result.httpRatio[key] = {
        fastestPeer: fastest,
        p50: s[key].p50 / s[fastest].p50,
        p90: s[key].p90 / Math.min(...peers.map((k) => s[k].p90)),
        // Per round: the variant's block median over the faster peer's block median of that round.
        paired: median(roundP50[key]!.map((v, i) => v / Math.min(...peers.map((k) => roundP50[k]![i]!)))),
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
