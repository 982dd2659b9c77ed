#!/usr/bin/env node
/**
 * Hybrid search at catalog scale: query latency (query embedding included) and resident memory
 * with 10,000 tools and their vectors, side by side with BM25 alone on the same catalog and queries.
 *
 * The query embedding is the real built-in model (USE lite) on every query (each query is new: the
 * query-vector cache never hits). Tool vectors: embedding 10,000 tools with it takes many minutes on
 * this machine, and the cost of a vector search does not depend on which vectors are searched, so
 * the first `--distinct` (default 400) tool texts are embedded for real and every other tool reuses
 * one of those vectors (chosen by its text's hash). Each timing is one search, in process.
 *
 * A third contender is hybrid after heavy use: `--learned` (default 20,000, the default cap of
 * learned-query vectors) queries learned for the tools, indexed as their learned BM25F field and held
 * as vectors that vote by meaning (reusing the same real vectors).
 *
 *   npx tsx --expose-gc bench/search-hybrid-latency.ts [--size 10000] [--queries 200] [--learned 20000]
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { machine, ms, option, runIfMain, summarize, table } from './lib/common.js';
import { syntheticQueries, syntheticTools } from './lib/synthetic-catalog.js';

export const TARGET_HYBRID_P50_MS = 30;
export const TARGET_RSS_MIB = 400;
const LIMIT = 20;

const rssMiB = () => process.memoryUsage().rss / 2 ** 20;

export async function run() {
  const size = option('size', 10_000);
  const queryCount = option('queries', 200);
  const distinct = option('distinct', 400);
  const seed = option('seed', 42);
  const learnedCount = option('learned', 20_000);
  const [
    { Catalog },
    { ToolSearch },
    { SemanticIndex },
    { SqliteStateStore },
    { createUseLiteEmbedder },
    { toolText },
    { LearnedQueries },
    { QueryMemory },
  ] = await Promise.all([
    import('../src/catalog/catalog.js'),
    import('../src/discovery/tool-search.js'),
    import('../src/discovery/semantic-index.js'),
    import('../src/operations/state/sqlite-state-store.js'),
    import('../src/operations/embedding/use-lite-embedder.js'),
    import('../src/discovery/tool-text.js'),
    import('../src/discovery/learned-queries.js'),
    import('../src/discovery/query-memory.js'),
  ]);
  const rssStart = rssMiB();
  const model = await createUseLiteEmbedder();
  await model.embed(['warm up']);
  const rssModel = rssMiB();
  const tools = syntheticTools(size, seed);
  const toolTexts = new Set(tools.map(toolText));
  const learnedTexts = syntheticQueries(learnedCount, seed + 3).map((q, i) => `${q} #${i}`);
  const learnedSet = new Set(learnedTexts);
  // Tool texts map onto `distinct` real vectors; queries are embedded for real, one by one.
  const pool = new Map();
  const embedder = {
    model: `${model.model}-bench`,
    async embed(texts: any) {
      if (!texts.every((text: any) => toolTexts.has(text) || learnedSet.has(text))) return model.embed(texts);
      const slots = texts.map(
        (text: any) => createHash('sha1').update(text).digest().readUInt32BE(0) % distinct,
      );
      const missing = [...new Set(slots.filter((slot: any) => !pool.has(slot)))];
      if (missing.length > 0) {
        const vectors = await model.embed(missing.map((slot) => texts[slots.indexOf(slot)]));
        for (const [i, slot] of missing.entries()) pool.set(slot, vectors[i]);
      }
      return slots.map((slot: any) => pool.get(slot));
    },
  };
  const queries = syntheticQueries(queryCount, seed + 1);
  const catalog = new Catalog({ debounceMs: 0 });
  catalog.replaceSource(
    'synthetic',
    tools.map((tool) => ({ tool, backend: { execute: async () => null } })),
  );
  // The gateway's own state store: vectors cached in SQLite, in a throwaway directory.
  const stateDir = mkdtempSync(path.join(tmpdir(), 'aperture-bench-'));
  const store = new SqliteStateStore(stateDir);
  const semantic = new SemanticIndex({ embedder, store });
  const hybrid = new ToolSearch(catalog, { strategy: 'hybrid', semantic });
  let start = performance.now();
  hybrid.refresh();
  await semantic.whenIdle();
  const indexSeconds = (performance.now() - start) / 1000;
  // What a gateway holds: the model, the catalog, one BM25F index and the vectors (the BM25-only
  // comparator below is built after this reading).
  toolTexts.clear(); // the benchmark's own lookup table, not the gateway's
  globalThis.gc?.();
  const rssLoaded = rssMiB();
  // Heavy use: learned queries (the gateway's LearnedQueries) and their vectors, measured before the
  // comparators below are built; then a second hybrid search that indexes them in BM25F and fuses
  // their votes.
  const learned = new LearnedQueries({ store });
  const memory = new QueryMemory({ learned, semantic, maxQueries: learnedCount });
  for (const [i, text] of learnedTexts.entries()) learned.learn(tools[(i * 7919) % size]!.id, text);
  await memory.whenIdle();
  learnedSet.clear();
  globalThis.gc?.();
  const rssLearned = rssMiB();
  const used = new ToolSearch(catalog, { strategy: 'hybrid', semantic, learned, memory });
  used.refresh();
  const bm25 = new ToolSearch(catalog, { strategy: 'bm25' });
  bm25.refresh();
  process.stderr.write(
    `search-hybrid-latency: ${size} tools indexed and embedded in ${indexSeconds.toFixed(1)} s\n`,
  );

  // Warm the JIT on other queries, then time each query once per strategy, alternating the order.
  // The same catalog and vectors fused by reciprocal ranks (`search.fusion: ranks`), for the ratio.
  const byRanks = new ToolSearch(catalog, { strategy: 'hybrid', semantic, fusion: 'ranks' });
  byRanks.refresh();
  const contenders: Record<string, any> = {
    hybrid,
    bm25,
    [`hybrid, ${learnedCount} learned queries`]: used,
    'hybrid, fused by ranks': byRanks,
  };
  for (const q of syntheticQueries(20, seed + 7)) {
    for (const search of Object.values<any>(contenders)) await search.search({ query: q, limit: LIMIT });
  }
  const samples: Record<string, number[]> = {
    ...Object.fromEntries(Object.keys(contenders).map((name) => [name, []])),
    'query embedding alone': [],
  };
  let answeredHybrid = 0;
  const names = Object.keys(contenders);
  for (const [i, query] of queries.entries()) {
    // Rotate the order, so that no contender always runs first (or last).
    const order = names.map((_, j) => names[(i + j) % names.length]!);
    for (const name of order) {
      // A query seen by one contender would hit the shared query-vector cache in the next.
      const q = `${query} ${'.'.repeat(names.indexOf(name))}`.trim();
      start = performance.now();
      const page = await contenders[name].search({ query: q, limit: LIMIT });
      samples[name]!.push(performance.now() - start);
      if (name === 'hybrid' && page.strategy === 'hybrid') answeredHybrid++;
    }
    start = performance.now();
    await model.embed([`${query} (again)`]);
    samples['query embedding alone']!.push(performance.now() - start);
  }
  const rssEnd = rssMiB();
  store.close();
  rmSync(stateDir, { recursive: true, force: true });
  return {
    config: { size, queries: queryCount, distinct, seed, limit: LIMIT },
    machine: machine(),
    indexSeconds,
    answeredHybrid,
    learned: learnedCount,
    rssMiB: { start: rssStart, model: rssModel, loaded: rssLoaded, learned: rssLearned, end: rssEnd },
    latency: Object.fromEntries(Object.entries<any>(samples).map(([k, v]) => [k, summarize(v)])),
  };
}

export function render(r: any) {
  const { size, queries, distinct } = r.config;
  const rows = Object.entries<any>(r.latency).map(([name, s]) => [name, ms(s.p50), ms(s.p95), ms(s.p99)]);
  const p50 = r.latency.hybrid.p50;
  const rss = r.rssMiB.loaded;
  return [
    '## Hybrid search latency and memory (in process)',
    '',
    `${size.toLocaleString('en-US')} synthetic tools with 512-dimensional vectors (${distinct} embedded for real, ` +
      `the rest reusing them), ${queries} new queries each timed once per strategy (alternating), limit ${r.config.limit}; ` +
      `${r.answeredHybrid}/${queries} answered by hybrid. Times in ms.`,
    '',
    table(['', 'p50', 'p95', 'p99'], rows),
    '',
    `Hybrid p50 / BM25 p50: ${(p50 / r.latency.bm25.p50).toFixed(0)}×. RSS: ${r.rssMiB.start.toFixed(0)} MiB at start, ` +
      `${r.rssMiB.model.toFixed(0)} MiB with the model loaded, ${rss.toFixed(0)} MiB with ${size.toLocaleString('en-US')} tools and vectors ` +
      `(${r.rssMiB.learned.toFixed(0)} MiB with ${r.learned.toLocaleString('en-US')} learned queries and their vectors added; ` +
      `${r.rssMiB.end.toFixed(0)} MiB at the end, with the two comparators' own indexes).`,
    '',
    `Targets: hybrid p50 ≤ ${TARGET_HYBRID_P50_MS} ms — ${ms(p50)} ms: **${p50 <= TARGET_HYBRID_P50_MS ? 'met' : 'missed'}**; ` +
      `RSS ≤ ${TARGET_RSS_MIB} MiB — ${rss.toFixed(0)} MiB: **${rss <= TARGET_RSS_MIB ? 'met' : 'missed'}**.`,
    '',
  ].join('\n');
}

runIfMain(import.meta.url, run, render);
