#!/usr/bin/env node
/**
 * What the OS sandbox costs, side by side in one run (docs/PERFORMANCE.md, "Sandboxed servers"):
 *
 *   - startup   a stdio server's start to its first `tools/list` answer, unconfined vs sandboxed
 *               (bubblewrap, default profile), vs sandboxed with an allow-list network (egress
 *               proxy + launcher); `rounds` starts each, interleaved. Servers: the reference
 *               `everything` server (installed, warm) and the hostile fixture.
 *   - calls     per-call latency over stdio of one connection each (unconfined vs sandboxed):
 *               `calls` sequential `echo` calls, in interleaved blocks.
 *   - proxy     one plain HTTP GET to a loopback server, straight vs through the egress proxy's
 *               unix socket (proxy form, a new connection per request), `requests` each.
 *
 * Run: `npx tsx bench/sandbox-overhead.ts [--rounds 20] [--calls 2000] [--requests 2000]`.
 * Prints a Markdown section on stdout. Needs bubblewrap.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { silentLogger } from '../src/foundation/ports/logger.js';
import { startEgressProxy } from '../src/foundation/sandbox/egress-proxy.js';
import { parseHostPatterns } from '../src/foundation/sandbox/host-pattern.js';
import { detectSandboxEngine } from '../src/foundation/sandbox/sandbox-engine.js';
import type { ServerSandboxConfig } from '../src/foundation/sandbox/sandbox-schema.js';
import { openConnection } from '../src/sources/mcp/open-connection.js';
import type { ServerSandboxPlan } from '../src/sources/sandbox/server-sandbox.js';
import { serverSandboxPlan } from '../src/sources/sandbox/server-sandbox.js';
import { machine, ms, option, ROOT, runIfMain, summarize, table } from './lib/common.js';

const require = createRequire(import.meta.url);
const HOSTILE = path.join(ROOT, 'test', 'fixtures', 'hostile-server', 'server.mjs');

function everythingBin(): string {
  const manifest = require.resolve('@modelcontextprotocol/server-everything/package.json');
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: string | Record<string, string> };
  return path.join(path.dirname(manifest), typeof bin === 'string' ? bin : (Object.values(bin)[0] as string));
}

type Variant = 'unconfined' | 'sandboxed' | 'sandboxed+proxy';

function plan(variant: Variant, stateDir: string, args: string[]): ServerSandboxPlan | undefined {
  if (variant === 'unconfined') return undefined;
  const profile: ServerSandboxConfig | undefined =
    variant === 'sandboxed+proxy' ? { network: { allow: ['127.0.0.1:9'] } } : undefined;
  return serverSandboxPlan('bench', profile, args, {
    settings: { default: 'on', audit: 'refused' },
    stateDir,
  });
}

async function connect(variant: Variant, args: string[], stateDir: string) {
  const sandbox = plan(variant, stateDir, args);
  return openConnection(
    { kind: 'stdio', command: process.execPath, args, env: {}, ...(sandbox ? { sandbox } : {}) },
    {
      clientInfo: { name: 'bench', version: '1' },
      capabilities: {},
      log: silentLogger,
      timeoutMs: 30_000,
    },
  );
}

interface Results {
  machine: ReturnType<typeof machine>;
  startup: Record<string, Record<Variant, ReturnType<typeof summarize>>>;
  calls: Record<string, ReturnType<typeof summarize>>;
  proxy: Record<string, ReturnType<typeof summarize>>;
}

async function run(): Promise<Results> {
  const engine = detectSandboxEngine();
  if (!engine.available) throw new Error(`no sandbox engine: ${engine.reason}`);
  const rounds = option('rounds', 20);
  const calls = option('calls', 2000);
  const requests = option('requests', 2000);
  const stateDir = mkdtempSync(path.join(os.tmpdir(), 'bench-sandbox-'));
  const servers: Record<string, string[]> = { everything: [everythingBin(), 'stdio'], hostile: [HOSTILE] };
  const variants: Variant[] = ['unconfined', 'sandboxed', 'sandboxed+proxy'];
  const startup: Results['startup'] = {};
  for (const [name, args] of Object.entries(servers)) {
    const samples: Record<Variant, number[]> = { unconfined: [], sandboxed: [], 'sandboxed+proxy': [] };
    for (let r = -1; r < rounds; r++) {
      for (let i = 0; i < variants.length; i++) {
        const variant = variants[(i + Math.max(r, 0)) % variants.length] as Variant;
        const started = performance.now();
        const connection = await connect(variant, args, stateDir);
        await connection.client.listTools();
        const took = performance.now() - started;
        await connection.close();
        if (r >= 0) samples[variant].push(took);
      }
      process.stderr.write(`startup ${name} round ${r + 1}/${rounds}\r`);
    }
    startup[name] = {
      unconfined: summarize(samples.unconfined),
      sandboxed: summarize(samples.sandboxed),
      'sandboxed+proxy': summarize(samples['sandboxed+proxy']),
    };
  }
  process.stderr.write('\n');

  // Per call: one connection each, blocks of 100 calls alternating.
  const open = {
    unconfined: await connect('unconfined', servers.everything as string[], stateDir),
    sandboxed: await connect('sandboxed', servers.everything as string[], stateDir),
  };
  const callSamples: Record<string, number[]> = { unconfined: [], sandboxed: [] };
  const echo = async (key: 'unconfined' | 'sandboxed', count: number, keep: boolean) => {
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      await open[key].client.callTool({ name: 'echo', arguments: { message: 'x' } });
      if (keep) callSamples[key]?.push(performance.now() - started);
    }
  };
  for (const key of ['unconfined', 'sandboxed'] as const) await echo(key, 200, false);
  for (let done = 0, r = 0; done < calls; done += 100, r++) {
    const order =
      r % 2 === 0 ? (['unconfined', 'sandboxed'] as const) : (['sandboxed', 'unconfined'] as const);
    for (const key of order) await echo(key, 100, true);
  }
  await open.unconfined.close();
  await open.sandboxed.close();

  // The proxy: a loopback server, straight vs through the proxy's socket.
  const upstream = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const port = (upstream.address() as AddressInfo).port;
  const socketPath = path.join(stateDir, 'proxy.sock');
  const proxy = await startEgressProxy({
    socketPath,
    allow: parseHostPatterns([`127.0.0.1:${port}`]),
    onDecision: () => {},
  });
  const get = (viaProxy: boolean) =>
    new Promise<void>((resolve, reject) => {
      const req = request(
        viaProxy
          ? { socketPath, path: `http://127.0.0.1:${port}/`, agent: false }
          : { host: '127.0.0.1', port, path: '/', agent: false },
        (res) => {
          res.resume();
          res.on('end', () => resolve());
        },
      );
      req.on('error', reject);
      req.end();
    });
  const proxySamples: Record<string, number[]> = { straight: [], proxied: [] };
  for (let i = 0; i < 200; i++) {
    await get(false);
    await get(true);
  }
  for (let i = 0; i < requests; i++) {
    for (const [key, via] of (i % 2 === 0
      ? [
          ['straight', false],
          ['proxied', true],
        ]
      : [
          ['proxied', true],
          ['straight', false],
        ]) as [string, boolean][]) {
      const started = performance.now();
      await get(via);
      proxySamples[key]?.push(performance.now() - started);
    }
  }
  await proxy.close();
  upstream.close();
  rmSync(stateDir, { recursive: true, force: true });
  return {
    machine: machine(),
    startup,
    calls: {
      unconfined: summarize(callSamples.unconfined ?? []),
      sandboxed: summarize(callSamples.sandboxed ?? []),
    },
    proxy: {
      straight: summarize(proxySamples.straight ?? []),
      proxied: summarize(proxySamples.proxied ?? []),
    },
  };
}

function render(results: Results): string {
  const lines = ['### Start-up to the first tools/list (ms)', ''];
  const rows: unknown[][] = [];
  for (const [name, by] of Object.entries(results.startup)) {
    for (const variant of ['unconfined', 'sandboxed', 'sandboxed+proxy'] as const) {
      const s = by[variant];
      rows.push([
        name,
        variant,
        s.n,
        ms(s.p50, 1),
        ms(s.mean, 1),
        ms(s.p95, 1),
        ms(s.p50 - by.unconfined.p50, 1),
      ]);
    }
  }
  lines.push(table(['server', 'variant', 'n', 'p50', 'mean', 'p95', 'p50 − unconfined'], rows), '');
  lines.push('### Per call over stdio, `everything` echo (ms)', '');
  lines.push(
    table(
      ['variant', 'n', 'p50', 'p95', 'p99', 'mean'],
      Object.entries(results.calls).map(([k, s]) => [k, s.n, ms(s.p50), ms(s.p95), ms(s.p99), ms(s.mean)]),
    ),
    '',
  );
  lines.push('### One HTTP GET on loopback, straight vs through the egress proxy (ms)', '');
  lines.push(
    table(
      ['path', 'n', 'p50', 'p95', 'p99', 'mean'],
      Object.entries(results.proxy).map(([k, s]) => [k, s.n, ms(s.p50), ms(s.p95), ms(s.p99), ms(s.mean)]),
    ),
  );
  return lines.join('\n');
}

runIfMain(import.meta.url, run, render);
