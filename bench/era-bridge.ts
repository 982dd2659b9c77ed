#!/usr/bin/env node
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  GATEWAY_CLI,
  interleavedRounds,
  machine,
  median,
  ms,
  option,
  ROOT,
  runIfMain,
  spawnTracked,
  stopChild,
  summarize,
  table,
} from './lib/common.js';
import { type HttpServer, startHttpServer } from './lib/mcp-clients.js';

/*
 * What bridging the eras costs per call: a tool call with one elicitation round (the server asks
 * the user one thing, the client accepts), by a 2025-11-25 client and by a 2026-07-28 client, to
 * the server directly and through the gateway (flat exposure), side by side in one run, blocks
 * interleaved. The servers:
 *
 * - `both`: test/fixtures/conformance/dual-era-server.mjs, both eras on one endpoint. The gateway
 *   reaches it in 2026-07-28; a 2025 client's call goes on a 2025 session of its own (the server
 *   asks with `elicitation/create` on it), a 2026 client's round passes through (its keys, its
 *   state wrapped in the gateway's signed one).
 * - `modern`: test/fixtures/conformance/modern-conformance-server.mjs, whose 2025 side keeps no
 *   session: a 2025 client's round is translated (the gateway asks the client `elicitation/create`,
 *   and retries the call with the answer).
 *
 * "Added" is the gateway's p50 minus the direct p50 of the same client era and server, paired by
 * round; the ratio compares what the bridge adds for a 2025 client with what a 2026 client pays.
 */

interface Variant {
  key: string;
  label: string;
  call: () => Promise<void>;
  close: () => Promise<void>;
}

const ACCEPT = { action: 'accept' as const, content: { username: 'ada', email: 'ada@example.com' } };

/** Starts a fixture server that prints `listening <url>` on stdout. */
async function startFixture(script: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawnTracked(process.execPath, [path.join(ROOT, script)], { cwd: ROOT });
  child.stderr?.resume();
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening (\S+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { child, url };
}

/** A 2025 client (SDK v1) that accepts every elicitation; `call` runs the tool once. */
async function legacyVariant(key: string, label: string, url: string, tool: string): Promise<Variant> {
  const client = new Client(
    { name: `bench-${key}`, version: '1.0.0' },
    { capabilities: { elicitation: {} } },
  );
  client.setRequestHandler(ElicitRequestSchema, async () => ACCEPT);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return {
    key,
    label,
    call: async () => {
      const result = await client.callTool({ name: tool, arguments: { message: 'Your name?' } });
      if (result.isError) throw new Error(`${key}: ${JSON.stringify(result)}`);
    },
    close: () => client.close(),
  };
}

/** A 2026-07-28 client (SDK v2) that answers the round itself. */
async function modernVariant(key: string, label: string, url: string, tool: string): Promise<Variant> {
  const client = new ModernClient(
    { name: `bench-${key}`, version: '1.0.0' },
    { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  client.setRequestHandler('elicitation/create', async () => ACCEPT);
  await client.connect(new ModernHttpTransport(new URL(url)));
  return {
    key,
    label,
    call: async () => {
      const result = await client.callTool({ name: tool, arguments: { message: 'Your name?' } });
      if ((result as { isError?: boolean }).isError) throw new Error(`${key}: ${JSON.stringify(result)}`);
    },
    close: () => client.close(),
  };
}

export async function run(options: Record<string, number> = {}) {
  const n = options.n ?? option('n', 300);
  const warmup = options.warmup ?? option('warmup', 30);
  const blockSize = options.block ?? option('block', 30);
  const dir = await mkdtemp(path.join(tmpdir(), 'aperture-bench-eras-'));
  const fixtures: ChildProcess[] = [];
  const variants: Variant[] = [];
  let gateway: HttpServer | undefined;
  try {
    const both = await startFixture('test/fixtures/conformance/dual-era-server.mjs');
    const modern = await startFixture('test/fixtures/conformance/modern-conformance-server.mjs');
    fixtures.push(both.child, modern.child);
    const config = path.join(dir, 'aperture.yaml');
    await writeFile(
      config,
      JSON.stringify({
        servers: { both: { url: both.url }, modern: { url: modern.url } },
        tools: { builtin: false },
        exposure: 'flat',
        observability: { logLevel: 'warn' },
      }),
    );
    gateway = await startHttpServer([GATEWAY_CLI, 'serve', '--config', config, '--port', '0']);
    const through = gateway.url;
    variants.push(
      await legacyVariant(
        'direct-2025',
        '2025 client → both-era server, direct',
        both.url,
        'test_elicitation',
      ),
      await modernVariant(
        'direct-2026',
        '2026 client → both-era server, direct',
        both.url,
        'test_elicitation',
      ),
      await legacyVariant(
        'gw-2025',
        '2025 client → gateway → both-era server (2025 session link)',
        through,
        'both__test_elicitation',
      ),
      await modernVariant(
        'gw-2026',
        '2026 client → gateway → both-era server (round passed through)',
        through,
        'both__test_elicitation',
      ),
      await legacyVariant(
        'gw-2025-modern',
        '2025 client → gateway → 2026-only server (round translated)',
        through,
        'modern__test_elicitation',
      ),
      await modernVariant(
        'gw-2026-modern',
        '2026 client → gateway → 2026-only server (round passed through)',
        through,
        'modern__test_elicitation',
      ),
    );
    const { samples, roundP50, seconds } = await interleavedRounds(variants, {
      n,
      warmup,
      blockSize,
      block: async (variant, count, sink) => {
        for (let i = 0; i < count; i++) {
          const start = performance.now();
          await variant.call();
          sink?.push(performance.now() - start);
        }
      },
      onRound: (r, rounds) => process.stderr.write(`  era-bridge: round ${r}/${rounds}\r`),
    });
    process.stderr.write('\n');
    const added = (through: string, direct: string) =>
      median((roundP50[through] ?? []).map((v, i) => v - (roundP50[direct]?.[i] ?? Number.NaN)));
    const added2025 = added('gw-2025', 'direct-2025');
    const added2026 = added('gw-2026', 'direct-2026');
    return {
      config: { n, warmup, block: blockSize },
      machine: machine(),
      seconds,
      variants: variants.map((v) => ({ key: v.key, label: v.label, stats: summarize(samples[v.key] ?? []) })),
      added: {
        legacyLink: added2025,
        modernPassThrough: added2026,
        ratio: added2025 / added2026,
        // No direct 2025 baseline to the 2026-only server (its 2025 side cannot ask): against the
        // both-era server's direct 2025 call, the nearest like-for-like.
        legacyTranslated: added('gw-2025-modern', 'direct-2025'),
        modernPassThroughModernOnly: added('gw-2026-modern', 'direct-2026'),
      },
    };
  } finally {
    for (const variant of variants) await variant.close().catch(() => {});
    await gateway?.stop();
    for (const child of fixtures) await stopChild(child);
    await rm(dir, { recursive: true, force: true });
  }
}

export function render(results: Awaited<ReturnType<typeof run>>): string {
  const { n, warmup, block } = results.config;
  const a = results.added;
  return [
    '## Both eras bridged: the cost of one elicitation round',
    '',
    `${n} sequential calls per variant after ${warmup} warm-up, interleaved in blocks of ${block}; a tool ` +
      'call with one elicitation round (accepted); official SDK clients (v1 for 2025, v2 for 2026); times in ms.',
    '',
    table(
      ['variant', 'p50', 'p95', 'p99'],
      results.variants.map((v) => [v.label, ms(v.stats.p50), ms(v.stats.p95), ms(v.stats.p99)]),
    ),
    '',
    table(
      ['added by the gateway at p50 (paired by round)', 'ms'],
      [
        ['2025 client, both-era server (2025 session link)', ms(a.legacyLink)],
        ['2026 client, both-era server (round passed through)', ms(a.modernPassThrough)],
        ['**ratio 2025 / 2026**', `**${a.ratio.toFixed(2)}×**`],
        [
          '2025 client, 2026-only server (round translated), vs direct 2025 to both-era',
          ms(a.legacyTranslated),
        ],
        [
          '2026 client, 2026-only server (round passed through), vs direct 2026 to both-era',
          ms(a.modernPassThroughModernOnly),
        ],
      ],
    ),
  ].join('\n');
}

runIfMain(import.meta.url, run, render);
