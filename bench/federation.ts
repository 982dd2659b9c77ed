#!/usr/bin/env node
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Redis } from 'ioredis';
import { Catalog } from '../src/catalog/catalog.js';
import { LearnedQueries } from '../src/discovery/learned-queries.js';
import { ToolSearch } from '../src/discovery/tool-search.js';
import { MemoryStateStore } from '../src/foundation/ports/memory-state-store.js';
import { RedisSessionSearches } from '../src/operations/state/redis-session-searches.js';
import { startHttpGateway } from '../test/e2e/gateway-process.js';
import { startRedisServer } from '../test/support/redis-server.js';
import { machine, ms, option, ROOT, runIfMain, summarize, table, trackChild } from './lib/common.js';
import { syntheticQueries, syntheticTools } from './lib/synthetic-catalog.js';

/*
 * Federation figures (docs/PERFORMANCE.md, "Federation"):
 *
 * - recovery after a downstream session loss: `aperture serve` (built CLI) in front of a
 *   Streamable HTTP server that drops its sessions on demand; the official SDK client calls a
 *   read-only tool, the server drops every session, and the next call is timed (it is refused with
 *   404, the one connection re-initialised, the call sent again) beside an ordinary call;
 * - the shared recent-search record on Redis: the same search (1,000 tools, BM25F) with learning
 *   noting each search in memory only, and also in Redis (awaited: a run on another replica right
 *   after must find it), blocks interleaved; then a run learning from it on the same replica
 *   (memory) and on another replica (the session's record read from Redis, off the run's path:
 *   the run never waits for it).
 */

const FIXTURE = path.join(ROOT, 'test/fixtures/federation/session-dropping-server.mjs');

async function startFixture(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [FIXTURE], { stdio: ['ignore', 'pipe', 'inherit'] });
  trackChild(child);
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      const match = /^listening (http:\/\/\S+)$/.exec(line);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`fixture exited with ${code}`)));
  });
  return { url, child };
}

async function recovery(rounds: number) {
  const fixture = await startFixture();
  const dir = await mkdtemp(path.join(tmpdir(), 'aperture-bench-federation-'));
  const config = [
    'server: { name: bench-federation }',
    'tools: { builtin: false }',
    'exposure: { mode: flat }',
    'servers:',
    `  flaky: { url: "${fixture.url}/mcp" }`,
    'observability: { logLevel: error }',
  ].join('\n');
  await writeFile(path.join(dir, 'aperture.yaml'), `${config}\n`);
  const gateway = await startHttpGateway(['--config', 'aperture.yaml'], dir);
  const client = new Client({ name: 'bench-federation', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`)));
  const ordinary: number[] = [];
  const recovered: number[] = [];
  const call = async (samples: number[]) => {
    const started = performance.now();
    const result = await client.callTool({ name: 'flaky__read', arguments: { key: 'k' } });
    samples.push(performance.now() - started);
    if (result.isError) throw new Error(`call failed: ${JSON.stringify(result)}`);
  };
  try {
    for (let i = 0; i < 5; i++) await call([]);
    for (let r = 0; r < rounds; r++) {
      await call(ordinary);
      await fetch(`${fixture.url}/control/drop`, { method: 'POST' });
      await call(recovered);
    }
  } finally {
    await client.close().catch(() => {});
    await gateway[Symbol.asyncDispose]();
    fixture.child.kill('SIGTERM');
    await rm(dir, { recursive: true, force: true });
  }
  return { ordinary: summarize(ordinary), recovered: summarize(recovered) };
}

async function sharedRecord(searches: number) {
  const redisServer = await startRedisServer();
  if (!redisServer) throw new Error('redis-server is not installed: the shared record cannot be measured');
  const redis = new Redis(redisServer.url);
  const catalog = new Catalog({ debounceMs: 0 });
  const backend = { execute: async () => null };
  catalog.replaceSource(
    's',
    syntheticTools(1000).map((tool) => ({ tool, backend })),
  );
  const make = (shared: boolean) => {
    const learned = new LearnedQueries({
      store: new MemoryStateStore(),
      ...(shared ? { shared: new RedisSessionSearches({ redis, prefix: 'bench:', ttlMs: 1_800_000 }) } : {}),
    });
    return { learned, search: new ToolSearch(catalog, { strategy: 'bm25', learned }) };
  };
  const variants = { memory: make(false), redis: make(true) };
  // The run of the Redis variant lands on another replica: it reads the session's record.
  const otherReplica = make(true).learned;
  const queries = syntheticQueries(200);
  const searchMs: Record<string, number[]> = { memory: [], redis: [] };
  const runMs: Record<string, number[]> = { memory: [], redis: [] };
  const ids: Record<string, string> = {};
  try {
    for (let i = 0; i < searches; i++) {
      const order = i % 2 === 0 ? (['memory', 'redis'] as const) : (['redis', 'memory'] as const);
      for (const key of order) {
        const { search } = variants[key];
        const query = queries[i % queries.length] as string;
        const started = performance.now();
        const page = await search.search({ query, limit: 5, session: `session-${i % 50}` });
        if (i >= 20) searchMs[key]?.push(performance.now() - started);
        ids[key] = page.hits[0]?.tool.id ?? '';
      }
      for (const key of order) {
        const started = performance.now();
        const runOn = key === 'redis' ? otherReplica : variants[key].learned;
        await runOn.noteRun(`session-${i % 50}`, ids[key] as string, true);
        if (i >= 20) runMs[key]?.push(performance.now() - started);
      }
    }
  } finally {
    for (const { learned } of Object.values(variants)) learned.close();
    otherReplica.close();
    redis.disconnect();
    await redisServer[Symbol.asyncDispose]();
  }
  return {
    search: { memory: summarize(searchMs.memory ?? []), redis: summarize(searchMs.redis ?? []) },
    run: { memory: summarize(runMs.memory ?? []), redis: summarize(runMs.redis ?? []) },
  };
}

async function run() {
  const rounds = option('rounds', 20);
  const searches = option('searches', 500);
  return { machine: machine(), recovery: await recovery(rounds), shared: await sharedRecord(searches) };
}

function render(results: Awaited<ReturnType<typeof run>>): string {
  const { recovery: r, shared } = results;
  return [
    `## Federation (${results.machine.nproc} CPUs, load ${results.machine.loadavg})`,
    '',
    table(
      ['measure', 'p50', 'p95', 'ratio p50'],
      [
        ['ordinary call (read-only tool, flat)', ms(r.ordinary.p50), ms(r.ordinary.p95), '1'],
        [
          'first call after the server dropped every session',
          ms(r.recovered.p50),
          ms(r.recovered.p95),
          (r.recovered.p50 / r.ordinary.p50).toFixed(2),
        ],
        ['search, learning in memory', ms(shared.search.memory.p50), ms(shared.search.memory.p95), '1'],
        [
          'search, recent searches also in Redis',
          ms(shared.search.redis.p50),
          ms(shared.search.redis.p95),
          (shared.search.redis.p50 / shared.search.memory.p50).toFixed(2),
        ],
        [
          'run after a search on this replica (memory)',
          ms(shared.run.memory.p50),
          ms(shared.run.memory.p95),
          '1',
        ],
        [
          'run on another replica: the session’s record read from Redis (off the run’s path)',
          ms(shared.run.redis.p50),
          ms(shared.run.redis.p95),
          (shared.run.redis.p50 / Math.max(shared.run.memory.p50, 0.001)).toFixed(0),
        ],
      ],
    ),
  ].join('\n');
}

runIfMain(import.meta.url, run, render);
