#!/usr/bin/env node
/**
 * What a `resources/read` costs through the stages reads now pass (the policies of the authorize
 * stage and the run pipeline's middlewares: activity feed, observability, rate limits…), against
 * the flat relay before them: server-everything behind `aperture serve` over Streamable HTTP
 * (2025 sessions), the same resource read in interleaved rounds by
 *
 * - `before`: a build from before the change, flat exposure (given by `--before-cli <main.js>`;
 *   left out without it),
 * - `flat`: this build, flat exposure,
 * - `metatools`: this build, metatools exposure (served there only since the change),
 * - `tool`: this build, flat, a tool call of the same server (`everything__echo`) for scale.
 *
 *     npx tsx bench/passthrough-read.ts --n 2000 --before-cli <pre-change checkout>/dist/cli/main.js
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  GATEWAY_CLI,
  interleavedRounds,
  machine,
  median,
  ms,
  option,
  ROOT,
  runIfMain,
  summarize,
  table,
} from './lib/common.js';
import { type Connection, connectHttp, type HttpServer, startHttpServer } from './lib/mcp-clients.js';

const URI = 'demo://resource/dynamic/text/1';

interface Variant {
  key: string;
  label: string;
  cli: string;
  exposure: 'flat' | 'metatools';
  call: (connection: Connection) => Promise<unknown>;
  server?: HttpServer;
  connection?: Connection;
}

async function everythingBin(): Promise<string> {
  const pkg = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-everything');
  const manifest = JSON.parse(await readFile(path.join(pkg, 'package.json'), 'utf8')) as {
    bin: string | Record<string, string>;
  };
  return path.join(pkg, typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin)[0]!);
}

const read = (connection: Connection) => connection.client.readResource({ uri: URI });

export async function run(options: { n?: number; warmup?: number; block?: number; beforeCli?: string } = {}) {
  const n = options.n ?? option('n', 2000);
  const warmup = options.warmup ?? option('warmup', 200);
  const blockSize = options.block ?? option('block', 100);
  const beforeCli = options.beforeCli ?? option('before-cli', '');
  const variants: Variant[] = [
    ...(beforeCli
      ? [
          {
            key: 'before',
            label: 'before the change: flat relay',
            cli: path.resolve(beforeCli),
            exposure: 'flat' as const,
            call: read,
          },
        ]
      : []),
    { key: 'flat', label: 'flat, through the stages', cli: GATEWAY_CLI, exposure: 'flat', call: read },
    {
      key: 'metatools',
      label: 'metatools, through the stages',
      cli: GATEWAY_CLI,
      exposure: 'metatools',
      call: read,
    },
    {
      key: 'tool',
      label: 'flat tool call `everything__echo` (for scale)',
      cli: GATEWAY_CLI,
      exposure: 'flat',
      call: (c) => c.client.callTool({ name: 'everything__echo', arguments: { message: 'x' } }),
    },
  ];
  const dir = await mkdtemp(path.join(tmpdir(), 'aperture-bench-passthrough-'));
  const everything = await everythingBin();
  try {
    for (const variant of variants) {
      const config = path.join(dir, `${variant.key}.yaml`);
      const q = JSON.stringify;
      await writeFile(
        config,
        [
          'tools: { builtin: false }',
          'servers:',
          `  everything: { command: ${q(process.execPath)}, args: [${q(everything)}, stdio] }`,
          `exposure: ${variant.exposure}`,
          'observability: { logLevel: warn }',
          '',
        ].join('\n'),
      );
      variant.server = await startHttpServer([
        variant.cli,
        'serve',
        '--config',
        config,
        '--http',
        '--port',
        '0',
      ]);
      // The gateway listens before its servers connected: wait until the resource reads.
      const deadline = Date.now() + 30_000;
      for (;;) {
        variant.connection = await connectHttp(variant.key, variant.server);
        const ok = await variant.call(variant.connection).then(
          () => true,
          () => false,
        );
        if (ok) break;
        await variant.connection.close();
        if (Date.now() > deadline) throw new Error(`${variant.key}: the resource never became readable`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    const { samples, roundP50, seconds } = await interleavedRounds(variants, {
      n,
      warmup,
      blockSize,
      block: async (variant, count, sink) => {
        for (let i = 0; i < count; i++) {
          const start = performance.now();
          await variant.call(variant.connection!);
          sink?.push(performance.now() - start);
        }
      },
      onRound: (r, rounds) => process.stderr.write(`  passthrough-read: round ${r}/${rounds}\r`),
    });
    process.stderr.write('\n');
    const reference = beforeCli ? 'before' : 'flat';
    const stats = Object.fromEntries(variants.map((v) => [v.key, summarize(samples[v.key]!)]));
    const rows = variants.map((v) => {
      const paired = roundP50[v.key]!.map((p, i) => p - roundP50[reference]![i]!);
      return {
        key: v.key,
        label: v.label,
        ...stats[v.key]!,
        ratioP50: stats[v.key]!.p50 / stats[reference]!.p50,
        pairedAddedP50: median(paired),
      };
    });
    const gate = await measureGate(n * 10);
    return {
      config: { n, warmup, block: blockSize, uri: URI, reference },
      machine: machine(),
      rows,
      gate,
      seconds,
    };
  } finally {
    for (const variant of variants) {
      await variant.connection?.close();
      await variant.server?.stop();
    }
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The gate alone, in process: `ActionGate.run` of a read whose relay answers at once, with the
 * activity feed's middleware and a rate limit matching every read that never refuses (as `serve` chains them), against
 * calling the relay directly. Per call, in microseconds.
 */
async function measureGate(calls: number) {
  const { ActionGate } = await import('../src/execution/action-gate.js');
  const { ActivityFeed } = await import('../src/operations/observe/activity-feed.js');
  const { PolicyEnforcement } = await import('../src/execution/policy/policy-enforcement.js');
  const { RateLimiter } = await import('../src/operations/limits/rate-limiter.js');
  const feed = new ActivityFeed();
  const limiter = new RateLimiter({ rules: [{ tool: 'everything:*', perMinute: 1_000_000_000 }] });
  const gate = new ActionGate({
    middlewares: [feed.middleware, limiter.middleware],
    policy: new PolicyEnforcement(),
  });
  const answer = { contents: [] };
  const relay = async () => answer;
  const action = {
    target: { namespace: 'everything', sourceId: 'mcp:everything' },
    method: 'resources/read' as const,
    args: { uri: URI },
    caller: { identity: 'bench', surface: 'mcp' as const },
  };
  const time = async (fn: () => Promise<unknown>) => {
    for (let i = 0; i < calls / 10; i++) await fn();
    const start = performance.now();
    for (let i = 0; i < calls; i++) await fn();
    return ((performance.now() - start) / calls) * 1000;
  };
  const rounds: { direct: number; gated: number }[] = [];
  for (let r = 0; r < 5; r++)
    rounds.push({ direct: await time(relay), gated: await time(() => gate.run(action, relay)) });
  const direct = median(rounds.map((r) => r.direct));
  const gated = median(rounds.map((r) => r.gated));
  return { calls, directUs: direct, gatedUs: gated, addedUs: gated - direct };
}

export function render(results: Awaited<ReturnType<typeof run>>): string {
  const { config, rows } = results;
  return [
    `resources/read of \`${config.uri}\` (server-everything), ${config.n} reads per variant in interleaved blocks of ${config.block}, after ${config.warmup} warm-up; ratios to \`${config.reference}\``,
    '',
    table(
      ['variant', 'p50 ms', 'p95 ms', 'p99 ms', `× ${config.reference} p50`, 'paired added p50 ms'],
      rows.map((r) => [
        r.label,
        ms(r.p50),
        ms(r.p95),
        ms(r.p99),
        r.ratioP50.toFixed(3),
        r.key === config.reference ? '—' : ms(r.pairedAddedP50),
      ]),
    ),
    '',
    `The gate alone, in process (${results.gate.calls} calls × 5 rounds, medians): a relay answering at once takes ${results.gate.directUs.toFixed(2)} µs called directly, ${results.gate.gatedUs.toFixed(2)} µs through \`ActionGate.run\` (activity feed + rate limiter + policies): ${results.gate.addedUs.toFixed(2)} µs added per read.`,
  ].join('\n');
}

runIfMain(import.meta.url, run, render);
