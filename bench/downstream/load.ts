/** Part 2 of the downstream benchmark: many concurrent sessions through Aperture and its peers. */
import { rssMiB } from '../lib/common.js';
import { connectHttp, startHttpServer } from '../lib/mcp-clients.js';
import { cpuNow } from './latency.js';
import { EVERYTHING, echo, gatewayHttpArgs, remember, startPeer, stats, untilReady } from './support.js';
import { COMPARE_CLI, mcpProxyArgs, SDK_HTTP_RELAY, supergatewayArgs } from './variants.js';

// ---------------------------------------------------------------------------------------------
// Part 2: many concurrent sessions

export async function loadRound(target: any, server: any, { clients, calls, round }: any) {
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

export async function measureLoad(configs: any, { clients, calls, rounds, targets }: any) {
  const servers: Record<string, any> = {};
  try {
    for (const target of targets) {
      if (target === 'aperture' || target === 'aperture-cmp') {
        const args = gatewayHttpArgs(configs.everything);
        // `aperture-cmp`: the build given by `--compare-cli`, beside this one.
        if (target === 'aperture-cmp') args[0] = COMPARE_CLI;
        servers[target] = await startHttpServer(args);
        await untilReady(
          servers[target].url.replace(/\/mcp$/, ''),
          (r: any) => r.sources?.[0]?.state === 'connected',
        );
      } else if (target === 'mcp-proxy') {
        servers[target] = await startPeer(target, mcpProxyArgs);
      } else if (target === 'supergw') {
        servers[target] = await startPeer(target, supergatewayArgs);
      } else if (target === 'sdk-relay') {
        // Reference: the smallest relay on the SDK v2 (one Server per session, one Client).
        servers[target] = await startHttpServer([SDK_HTTP_RELAY, EVERYTHING, 'stdio']);
      } else {
        throw new Error(`load target ${target}: aperture, aperture-cmp, sdk-relay, mcp-proxy or supergw`);
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
    return { rounds: results, vsSupergateway: versus(results, 'supergw') };
  } finally {
    for (const server of Object.values<any>(servers)) {
      remember(server.pid, 'load');
      await server.stop();
    }
  }
}

/** Throughput at least this multiple of supergateway's (stateful) under the same load. */
export const TARGET_LOAD_THROUGHPUT_RATIO = 2;
/** p95 at most this fraction of supergateway's under the same load. */
export const TARGET_LOAD_P95_RATIO = 0.5;

/**
 * Aperture against a peer, round by round (each pair ran back to back): throughput ratio and p95
 * ratio, the median over the rounds, and the calls that failed through Aperture.
 */
function versus(results: Record<string, any[]>, peer: string) {
  const ours = results.aperture;
  const theirs = results[peer];
  if (!ours || !theirs) return undefined;
  const pairs = ours.map((r, i) => ({ ours: r, theirs: theirs[i] })).filter((p) => p.theirs);
  const mid = (values: number[]) => values.sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
  return {
    peer,
    throughput: mid(pairs.map((p) => p.ours.perSecond / p.theirs.perSecond)),
    p95: mid(pairs.map((p) => p.ours.latency.p95 / p.theirs.latency.p95)),
    failed: ours.reduce((sum, r) => sum + r.lost + r.mixed, 0),
    peerFailed: theirs.reduce((sum, r) => sum + r.lost + r.mixed, 0),
  };
}
