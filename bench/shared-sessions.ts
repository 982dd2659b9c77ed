#!/usr/bin/env node
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startRedisServer } from '../test/support/redis-server.js';
import {
  FIXTURE_CONFIG,
  GATEWAY_CLI,
  machine,
  median,
  ms,
  option,
  ROOT,
  runIfMain,
  summarize,
  table,
} from './lib/common.js';
import { type HttpServer, startHttpServer } from './lib/mcp-clients.js';

/*
 * Per-call latency of a 2025-era MCP session (flat `fixture__noop` over Streamable HTTP, one
 * session per target, the official SDK client), side by side in one run, blocks interleaved:
 *
 * - `default`: one gateway, sessions in its memory (no `state.driver: redis`);
 * - `reference` (with `--reference-cli PATH`): the same on another build, to show the default
 *   path did not get slower;
 * - `redis`: one gateway with `state.driver: redis` (each call asks the session directory);
 * - `redis-2`: two gateways on that Redis, the session's requests alternating between them.
 */

interface Target {
  key: string;
  label: string;
  client?: Client;
  samples: number[];
  roundP50: number[];
}

/** A fetch that sends request n to `urls[n % urls.length]`. */
function alternating(urls: string[]): typeof fetch {
  let n = 0;
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    url.host = new URL(urls[n++ % urls.length] as string).host;
    return fetch(url, init);
  };
}

async function connect(urls: string[], label: string): Promise<Client> {
  const client = new Client({ name: `bench-${label}`, version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(
      new URL(`${urls[0]}/mcp`),
      urls.length > 1 ? { fetch: alternating(urls) } : {},
    ),
  );
  await client.listTools();
  return client;
}

async function block(target: Target, count: number, sink?: number[]) {
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    const result = await (target.client as Client).callTool({ name: 'fixture__noop', arguments: {} });
    const elapsed = performance.now() - start;
    if (result.isError) throw new Error(`${target.key} failed: ${JSON.stringify(result)}`);
    sink?.push(elapsed);
  }
}

export async function run(options: any = {}) {
  const n = options.n ?? option('n', 2000);
  const warmup = options.warmup ?? option('warmup', 200);
  const blockSize = options.block ?? option('block', 200);
  const referenceCli = options.referenceCli ?? option('reference-cli', '');
  // `--redis 0`: the default-path comparison alone.
  const redis = (options.redis ?? option('redis', 1)) ? await startRedisServer() : null;
  const dir = await mkdtemp(path.join(tmpdir(), 'aperture-bench-shared-'));
  const servers: HttpServer[] = [];
  const serve = async (cli: string, config: string) => {
    const server = await startHttpServer([cli, 'serve', '--config', config, '--http', '--port', '0']);
    servers.push(server);
    return server.url.replace(/\/mcp$/, '');
  };
  const targets: Target[] = [];
  const add = async (key: string, label: string, urls: string[]) => {
    targets.push({ key, label, client: await connect(urls, key), samples: [], roundP50: [] });
  };
  try {
    await add('default', 'default (memory), this build', [await serve(GATEWAY_CLI, FIXTURE_CONFIG)]);
    if (referenceCli)
      await add('reference', 'default (memory), reference build', [
        await serve(referenceCli, FIXTURE_CONFIG),
      ]);
    if (redis) {
      const config = path.join(dir, 'aperture.yaml');
      const lines = [
        'server: { name: aperture-bench }',
        `tools: { builtin: true, modules: [${JSON.stringify(path.join(ROOT, 'test/fixtures/tools/*.ts'))}] }`,
        'exposure: { mode: auto, budgetTokens: 100000 }',
        'execution: { timeoutMs: 5000 }',
        'observability: { logLevel: warn }',
        `state: { driver: redis, redis: { url: ${JSON.stringify(redis.url)}, prefix: "bench:" } }`,
      ];
      await writeFile(config, `${lines.join('\n')}\n`);
      await add('redis', 'state.driver redis, one replica', [await serve(GATEWAY_CLI, config)]);
      await add('redis2', 'state.driver redis, two replicas alternating', [
        await serve(GATEWAY_CLI, config),
        await serve(GATEWAY_CLI, config),
      ]);
    } else {
      process.stderr.write('shared-sessions: redis-server is not installed; the Redis targets are skipped\n');
    }
    for (let r = 0; r < Math.ceil(warmup / blockSize); r++)
      for (const t of targets) await block(t, blockSize);
    const rounds = Math.ceil(n / blockSize);
    for (let r = 0; r < rounds; r++) {
      const order = targets.map((_, i) => targets[(i + r) % targets.length] as Target);
      for (const target of order) {
        const round: number[] = [];
        await block(target, Math.min(blockSize, n - r * blockSize), round);
        target.samples.push(...round);
        target.roundP50.push(median(round));
      }
      process.stderr.write(`  shared-sessions: round ${r + 1}/${rounds}\r`);
    }
    process.stderr.write('\n');
    const base = targets[0] as Target;
    return {
      config: { n, warmup, block: blockSize, reference: Boolean(referenceCli) },
      machine: machine(),
      targets: targets.map((t) => {
        const stats = summarize(t.samples);
        const paired = median(t.roundP50.map((v, i) => v - (base.roundP50[i] as number)));
        return {
          key: t.key,
          label: t.label,
          stats,
          ratioP50: stats.p50 / summarize(base.samples).p50,
          pairedAddedP50: paired,
        };
      }),
    };
  } finally {
    for (const t of targets) await t.client?.close().catch(() => {});
    for (const server of servers) await server.stop();
    await redis?.[Symbol.asyncDispose]();
    await rm(dir, { recursive: true, force: true });
  }
}

export function render(results: any): string {
  const { n, warmup, block: blockSize } = results.config;
  return [
    '## 2025-era session calls: memory vs Redis-shared sessions',
    '',
    `${n} sequential calls per target after ${warmup} warm-up, interleaved in blocks of ${blockSize}; ` +
      'flat `fixture__noop` over Streamable HTTP, official SDK client; times in ms.',
    '',
    table(
      ['target', 'p50', 'p95', 'p99', 'p50 ratio vs default', 'added at p50, paired by round'],
      results.targets.map((t: any) => [
        t.label,
        ms(t.stats.p50),
        ms(t.stats.p95),
        ms(t.stats.p99),
        `${t.ratioP50.toFixed(2)}×`,
        ms(t.pairedAddedP50),
      ]),
    ),
  ].join('\n');
}

runIfMain(import.meta.url, run, render);
