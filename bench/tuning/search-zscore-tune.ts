#!/usr/bin/env node
/**
 * Score fusion with each list standardised over the whole catalog instead of over its own top
 * hits: a BM25F list of seven matches and a cosine list of a hundred near-noise neighbours then
 * no longer count the same. Every set is recomputed in process (every tool scored); query vectors
 * come from the cache `search-lists.ts` filled. Choose on `toollens-train` only.
 *
 *   npx tsx bench/tuning/search-zscore-tune.ts [--sets toollens-train,people]
 */
import path from 'node:path';
import * as metrics from '../../src/discovery/evaluation/retrieval-metrics.js';
import { fuseScores } from '../../src/discovery/rank-fusion.js';
import { DEFAULT_SERVER_WEIGHT } from '../../src/discovery/search-defaults.js';
import { compareHits, type SearchHit } from '../../src/discovery/search-index.js';
import { createUseLiteEmbedder } from '../../src/operations/embedding/use-lite-embedder.js';
import { SqliteStateStore } from '../../src/operations/state/sqlite-state-store.js';
import { datasetEntries, loadDataset } from '../../src/sources/dataset/dataset-source.js';
import { cachingEmbedder, DEFAULT_BENCHMARKS, option, ROOT } from '../lib/common.js';
import { evenlySpaced, indexCatalog } from './search-catalog.js';
import { SET_FILES } from './search-fusion-tune.js';

const SAMPLE: Record<string, number> = { 'toollens-train': 4000, 'metatool-single': 1000 };
const FILES: Record<string, [string, string]> = {
  ...SET_FILES,
  people: ['livemcpbench', path.join(ROOT, 'bench', 'data', 'people-requests.jsonl')],
};
const sets = option('sets', Object.keys(FILES).join(',')).split(',');
const benchmarks = option('benchmarks', DEFAULT_BENCHMARKS);
const store = new SqliteStateStore(path.join(ROOT, '.aperture'));
const embedder = await createUseLiteEmbedder();
const queryEmbedder = cachingEmbedder(embedder, store);

/** Scores standardised over every tool (absent ones 0 for BM25F), clamped at 0, top `depth` kept. */
function catalogZ(all: SearchHit[], total: number, depth: number): SearchHit[] {
  let sum = 0;
  let squares = 0;
  for (const { score } of all) {
    sum += score;
    squares += score * score;
  }
  const mean = sum / total;
  const sd = Math.sqrt(Math.max(0, squares / total - mean * mean)) || 1;
  return all.slice(0, depth).map((h) => ({ id: h.id, score: Math.max(0, (h.score - mean) / sd) }));
}

/** Adds lists of scores already on one scale. */
function add(lists: { hits: SearchHit[]; weight: number }[]): SearchHit[] {
  const scores = new Map<string, number>();
  for (const { hits, weight } of lists)
    for (const { id, score } of hits) scores.set(id, (scores.get(id) ?? 0) + weight * score);
  return [...scores].map(([id, score]) => ({ id, score })).sort(compareHits);
}

type Lists = { lexAll: SearchHit[]; vecAll: SearchHit[]; total: number };
const variants: [string, (l: Lists) => SearchHit[]][] = [
  [
    'shipped: each list over its top 100',
    ({ lexAll, vecAll }) =>
      fuseScores([
        { hits: lexAll.slice(0, 100), weight: 1 },
        { hits: vecAll.slice(0, 100), weight: 1 },
      ]),
  ],
];
for (const w of [1.5, 2, 2.5, 3, 4]) {
  variants.push([
    `both over the catalog, w ${w}`,
    ({ lexAll, vecAll, total }) =>
      add([
        { hits: catalogZ(lexAll, total, 100), weight: 1 },
        { hits: catalogZ(vecAll, total, 100), weight: w },
      ]),
  ]);
  variants.push([
    `BM25F over the catalog, vectors over their top 100, w ${w}`,
    ({ lexAll, vecAll, total }) =>
      add([
        { hits: catalogZ(lexAll, total, 100), weight: 1 },
        { hits: [...fuseScores([{ hits: vecAll.slice(0, 100), weight: 1 }])], weight: w },
      ]),
  ]);
}

/** Each list standardised over 100 slots, slots without a hit scoring 0 (as absent tools do). */
function padded(hits: SearchHit[], depth: number): SearchHit[] {
  return catalogZ(hits.slice(0, depth), depth, depth);
}
for (const w of [0.75, 1, 1.25])
  variants.push([
    `BM25F over 100 slots (empty ones 0), vectors over their top 100, w ${w}`,
    ({ lexAll, vecAll }) =>
      add([
        { hits: padded(lexAll, 100), weight: 1 },
        { hits: [...fuseScores([{ hits: vecAll.slice(0, 100), weight: 1 }])], weight: w },
      ]),
  ]);

// A vector list whose best cosine is low is the model not knowing: it then weighs less.
for (const floor of [0.25, 0.3, 0.35, 0.4])
  for (const low of [0, 0.25, 0.5])
    variants.push([
      `vectors weigh ${low} when their best cosine < ${floor}`,
      ({ lexAll, vecAll }) =>
        fuseScores([
          { hits: lexAll.slice(0, 100), weight: 1 },
          { hits: vecAll.slice(0, 100), weight: (vecAll[0]?.score ?? 0) < floor ? low : 1 },
        ]),
    ]);

const out = new Map<string, Map<string, string>>();
for (const name of sets) {
  const [folder, file] = FILES[name]!;
  const dataset = await loadDataset(path.join(benchmarks, folder), file);
  const queries = evenlySpaced(dataset.queries, SAMPLE[name] ?? 0);
  const { entries, datasetIdOf } = datasetEntries(dataset.tools);
  const { bm25, servers, semantic, namespaceOf } = await indexCatalog(entries, embedder, store);
  const total = entries.length;
  const sums = variants.map(() => 0);
  for (let i = 0; i < queries.length; i += 64) {
    const batch = queries.slice(i, i + 64);
    const vectors = await queryEmbedder.embed(batch.map((q) => q.query));
    for (const [j, q] of batch.entries()) {
      const serverScores = servers.scores(q.query);
      const lexAll = bm25
        .search(q.query, { limit: total })
        .map((h) => ({
          id: h.id,
          score: h.score * (1 + DEFAULT_SERVER_WEIGHT * (serverScores.get(namespaceOf.get(h.id)!) ?? 0)),
        }))
        .sort(compareHits);
      const vecAll = await semantic.search(vectors[j]!, { limit: total });
      const relevant = new Set(q.relevant);
      variants.forEach(([, rank], v) => {
        const ranked = rank({ lexAll, vecAll, total })
          .slice(0, 10)
          .map((h) => datasetIdOf.get(h.id) ?? h.id);
        sums[v]! +=
          name === 'livemcpbench'
            ? metrics.ndcgAt(ranked, relevant, 10)
            : name === 'people'
              ? metrics.reciprocalRank(ranked, relevant)
              : metrics.recallAt(ranked, relevant, 5);
      });
    }
  }
  variants.forEach(([label], v) => {
    const row = out.get(label) ?? new Map<string, string>();
    row.set(name, ((100 * sums[v]!) / queries.length).toFixed(1));
    out.set(label, row);
  });
  semantic.close();
  process.stderr.write(`${name}: ${queries.length} queries\n`);
}
const header = [
  'variant',
  ...sets.map((n) => (n === 'livemcpbench' ? `${n} NDCG@10` : n === 'people' ? `${n} MRR` : `${n} R@5`)),
];
process.stdout.write(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|\n`);
for (const [label, row] of out)
  process.stdout.write(`| ${label} | ${sets.map((s) => row.get(s) ?? '—').join(' | ')} |\n`);
store.close();
