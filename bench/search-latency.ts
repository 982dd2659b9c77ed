#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Catalog } from '../src/catalog/catalog.js';
import { ToolSearch } from '../src/discovery/tool-search.js';
import { machine, ms, option, ROOT, runIfMain, summarize, table } from './lib/common.js';
import { syntheticQueries, syntheticTools } from './lib/synthetic-catalog.js';

export const TARGET_BM25_P50_MS = 1;
export const TARGET_BUILD_MS = 1000;

const LIMIT = 20;
/** The strategy measured against an earlier build with `--baseline DIR`. */
const BASELINE = 'bm25 (baseline)';

/** The search of an earlier build (`--baseline DIR`, its dist/ folder). */
async function loadBaseline(dir: string) {
  const file = (f: string) => pathToFileURL(path.join(dir, f)).href;
  const { Catalog } = (await import(
    file('catalog/catalog.js')
  )) as typeof import('../src/catalog/catalog.js');
  const { ToolSearch } = (await import(
    file('discovery/tool-search.js')
  )) as typeof import('../src/discovery/tool-search.js');
  return { Catalog, ToolSearch };
}

const heapMiB = () => process.memoryUsage().heapUsed / 2 ** 20;

/** The multilingual fixture's requests, every language, repeated to `count`. */
function multilingualQueries(count: number): string[] {
  const file = path.join(ROOT, 'test', 'fixtures', 'search', 'multilingual-queries.json');
  const set = JSON.parse(readFileSync(file, 'utf8')) as { intents: { queries: Record<string, string> }[] };
  const all = set.intents.flatMap((intent) => Object.values(intent.queries));
  return Array.from({ length: count }, (_, i) => all[i % all.length]!);
}

export async function run(options: any = {}) {
  const sizes = (options.sizes ?? option('sizes', '1000,10000')).split(',').map(Number);
  const queryCount = options.queries ?? option('queries', 500);
  const passes = options.passes ?? option('passes', 5);
  const builds = options.builds ?? option('builds', 5);
  const seed = options.seed ?? option('seed', 42);
  // `--baseline DIR`: the dist/ folder of an earlier build (e.g. a worktree of an older commit,
  // built), whose BM25 runs side by side with this one on the same catalogs and queries.
  const baselineDir = options.baseline ?? option('baseline', '');
  const makers: Record<string, (catalog: any) => any> = {
    bm25: (catalog: any) => new ToolSearch(catalog, { strategy: 'bm25' }),
    lexical: (catalog: any) => new ToolSearch(catalog, { strategy: 'lexical' }),
    // The default BM25 includes the server stage; without it, side by side, for its cost.
    'bm25, no server stage': (catalog: any) => new ToolSearch(catalog, { strategy: 'bm25', serverWeight: 0 }),
    // Abbreviations are read by default; without them, side by side, for their cost.
    'bm25, no query expansion': (catalog: any) =>
      new ToolSearch(catalog, { strategy: 'bm25', expandQueries: false }),
    // The multilingual lexicon, the verb stage and diversification are on by default; without
    // them (the ranking of before), side by side, for their cost.
    'bm25, no lexicon/verb stage/diversification': (catalog: any) =>
      new ToolSearch(catalog, { strategy: 'bm25', languages: [], verbWeight: 0, diversify: false }),
  };
  if (baselineDir) {
    const baseline = await loadBaseline(path.resolve(baselineDir));
    makers[BASELINE] = (catalog: any) => new baseline.ToolSearch(catalog, { strategy: 'bm25' });
  }
  const STRATEGIES = Object.keys(makers);
  const backend = { execute: async () => null };
  // `--query-set multilingual`: the requests of test/fixtures/search/multilingual-queries.json (eleven
  // languages), repeated to `--queries`, instead of the synthetic English ones.
  const querySet = options.querySet ?? option('query-set', 'synthetic');
  const queries =
    querySet === 'multilingual' ? multilingualQueries(queryCount) : syntheticQueries(queryCount, seed + 1);
  const results: Record<string, any> = {
    config: {
      sizes,
      queries: queryCount,
      passes,
      builds,
      seed,
      limit: LIMIT,
      querySet,
      baseline: baselineDir || undefined,
    },
    machine: machine(),
    sampleQueries: queries.slice(0, 8),
    sizes: {},
  };

  for (const size of sizes) {
    process.stderr.write(`search-latency: ${size} tools\n`);
    const tools = syntheticTools(size, seed);
    const catalog = new Catalog({ debounceMs: 0 });
    let start = performance.now();
    catalog.replaceSource(
      'synthetic',
      tools.map((tool) => ({ tool, backend })),
    );
    const loadMs = performance.now() - start;
    catalog.tools(); // sort once, outside every timing (the catalog caches it)

    const perStrategy: Record<string, any> = {};
    const searches: Record<string, any> = {};
    for (const strategy of STRATEGIES) {
      const buildTimes: any[] = [];
      let heapDelta = Number.NaN;
      for (let b = 0; b < builds; b++) {
        globalThis.gc?.();
        const heapBefore = heapMiB();
        const search = makers[strategy]!(catalog);
        start = performance.now();
        await search.search({ query: queries[b % queries.length], limit: LIMIT });
        buildTimes.push(performance.now() - start);
        if (globalThis.gc && b === builds - 1) {
          globalThis.gc();
          heapDelta = heapMiB() - heapBefore;
        }
        searches[strategy] = search; // keep the last one for the queries
      }
      perStrategy[strategy] = {
        buildColdMs: buildTimes[0],
        buildWarmMs: summarize(buildTimes.slice(1).length ? buildTimes.slice(1) : buildTimes).p50,
        buildTimes,
        indexHeapMiB: heapDelta,
        samples: [],
        hits: 0,
      };
      process.stderr.write(`  ${strategy}: build ${buildTimes.map((t) => t.toFixed(1)).join(', ')} ms\n`);
    }

    // One untimed pass per strategy warms the JIT; then timed passes, alternating the strategies.
    for (const strategy of STRATEGIES)
      for (const q of queries) await searches[strategy].search({ query: q, limit: LIMIT });
    for (let p = 0; p < passes; p++) {
      const order = p % 2 === 0 ? STRATEGIES : [...STRATEGIES].reverse();
      for (const strategy of order) {
        const search = searches[strategy];
        const record = perStrategy[strategy];
        for (const query of queries) {
          const t0 = performance.now();
          const page = await search.search({ query, limit: LIMIT });
          record.samples.push(performance.now() - t0);
          if (p === 0 && page.hits.length > 0) record.hits++;
        }
      }
    }
    for (const strategy of STRATEGIES) {
      const record = perStrategy[strategy];
      record.query = summarize(record.samples);
      record.queriesWithHits = record.hits / queries.length;
      delete record.samples;
      delete record.hits;
      process.stderr.write(
        `  ${strategy}: query p50 ${ms(record.query.p50)} ms, p95 ${ms(record.query.p95)} ms\n`,
      );
    }
    results.sizes[size] = { loadMs, strategies: perStrategy };
  }
  return results;
}

export function render(results: any) {
  const { queries, passes, builds, limit } = results.config;
  const out = [
    '## Search latency (in process)',
    '',
    `Synthetic catalogs (seeded); ${queries} varied queries × ${passes} timed passes after one warm-up pass, ` +
      `limit ${limit}; build = the first search on a fresh ToolSearch (cold = first in the process, ` +
      `warm = median of ${builds - 1} rebuilds). Times in ms.`,
    '',
  ];
  const rows: any[] = [];
  for (const [size, r] of Object.entries<any>(results.sizes)) {
    for (const [strategy, s] of Object.entries<any>(r.strategies)) {
      rows.push([
        Number(size).toLocaleString('en-US'),
        strategy,
        ms(s.buildColdMs, 1),
        ms(s.buildWarmMs, 1),
        ms(s.query.p50),
        ms(s.query.p95),
        ms(s.query.p99),
        `${Math.round(s.queriesWithHits * 100)}%`,
        Number.isFinite(s.indexHeapMiB) ? s.indexHeapMiB.toFixed(1) : 'n/a',
      ]);
    }
  }
  out.push(
    table(
      [
        'tools',
        'strategy',
        'build (cold)',
        'build (warm)',
        'query p50',
        'query p95',
        'query p99',
        'queries with hits',
        'index heap MiB',
      ],
      rows,
    ),
  );
  const largest = Math.max(...Object.keys(results.sizes).map(Number));
  const big = results.sizes[largest]?.strategies;
  if (big) {
    const p50 = big.bm25.query.p50;
    const build = Math.max(
      ...Object.entries<any>(big)
        .filter(([strategy]) => strategy !== BASELINE)
        .flatMap(([, s]) => [s.buildColdMs, s.buildWarmMs]),
    );
    out.push(
      '',
      `Targets at ${largest.toLocaleString('en-US')} tools: BM25 p50 ≤ ${TARGET_BM25_P50_MS} ms — ${ms(p50)} ms: ` +
        `**${p50 <= TARGET_BM25_P50_MS ? 'met' : 'missed'}**; build ≤ ${TARGET_BUILD_MS} ms (worst of cold and warm, both strategies) — ` +
        `${ms(build, 1)} ms: **${build <= TARGET_BUILD_MS ? 'met' : 'missed'}**.`,
    );
  }
  out.push('');
  return out.join('\n');
}

runIfMain(import.meta.url, run, render);
