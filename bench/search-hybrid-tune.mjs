#!/usr/bin/env node
/**
 * Tunes hybrid search on the ToolLens **training** queries only: the weight of the semantic list
 * in weighted reciprocal-rank fusion (BM25 weighs 1), and — with `--learn` — the boost of the
 * `learned` field, learning from one half of the training queries and scoring the other half.
 * Every ranked list is computed once; fusion is replayed per weight. In process, on the built
 * modules (`npm run build` first); tool vectors are cached in `.aperture/` like the gateway's.
 *
 *   node bench/search-hybrid-tune.mjs [--benchmarks DIR] [--sample 2000]
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { option, ROOT, runIfMain, table } from './lib/common.mjs';

const DEFAULT_BENCHMARKS = path.resolve(ROOT, '..', 'shared', 'benchmarks', 'tool-retrieval');
const WEIGHTS = [0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 3, 5];
const DEPTH = 100;

const dist = (file) => import(pathToFileURL(path.join(ROOT, 'dist', file)).href);

export async function run() {
  const benchmarks = option('benchmarks', DEFAULT_BENCHMARKS);
  const sample = option('sample', 2000);
  const [{ Bm25Index }, { SemanticIndex }, data, metrics, fusion, embedding, state] = await Promise.all([
    dist('discovery/bm25-index.js'),
    dist('discovery/semantic-index.js'),
    dist('sources/dataset/dataset-source.js'),
    dist('discovery/evaluation/retrieval-metrics.js'),
    dist('discovery/rank-fusion.js'),
    dist('sources/embedding/use-lite-embedder.js'),
    dist('operations/state/sqlite-state-store.js'),
  ]);
  const dataset = await data.loadDataset(path.join(benchmarks, 'toollens'), 'queries_train.jsonl');
  const step = dataset.queries.length / Math.min(sample, dataset.queries.length);
  const queries = Array.from(
    { length: Math.min(sample, dataset.queries.length) },
    (_, i) => dataset.queries[Math.floor(i * step)],
  );
  const { entries, datasetIdOf } = data.datasetEntries(dataset.tools);
  const log = (line) => process.stderr.write(`${line}\n`);
  log(`search-hybrid-tune: ${entries.length} tools, ${queries.length} ToolLens training queries`);

  const store = new state.SqliteStateStore(path.join(ROOT, '.aperture'));
  const embedder = await embedding.createUseLiteEmbedder();
  const semantic = new SemanticIndex({ embedder, store });
  const bm25 = new Bm25Index();
  for (const { tool } of entries) {
    bm25.upsert(tool);
    semantic.upsert(tool);
  }
  await semantic.whenIdle();
  const lexical = queries.map((q) => bm25.search(q.query, { limit: DEPTH }));
  const nearest = [];
  for (const [i, q] of queries.entries()) {
    nearest.push(await semantic.search(q.query, { limit: DEPTH }));
    if ((i + 1) % 200 === 0) log(`  embedded ${i + 1}/${queries.length} queries`);
  }
  const score = (lists) => {
    let r5 = 0;
    let ndcg10 = 0;
    lists.forEach((hits, i) => {
      const ranked = hits.slice(0, 10).map((hit) => datasetIdOf.get(hit.id) ?? hit.id);
      const relevant = new Set(queries[i].relevant);
      r5 += metrics.recallAt(ranked, relevant, 5);
      ndcg10 += metrics.ndcgAt(ranked, relevant, 10);
    });
    return { 'R@5': (r5 / lists.length) * 100, 'NDCG@10': (ndcg10 / lists.length) * 100 };
  };
  const rows = [
    { weight: 'bm25 alone', ...score(lexical) },
    { weight: 'semantic alone', ...score(nearest) },
  ];
  for (const weight of WEIGHTS.filter((w) => w > 0)) {
    const fused = lexical.map((hits, i) =>
      fusion.fuseRanks([
        { hits, weight: 1 },
        { hits: nearest[i], weight },
      ]),
    );
    rows.push({ weight, ...score(fused) });
  }
  store.close();
  return { queries: queries.length, rows };
}

export function render(results) {
  return [
    `## Hybrid fusion weight on ToolLens train (${results.queries} queries, RRF k = 60)`,
    '',
    table(
      ['semantic weight', 'R@5', 'NDCG@10'],
      results.rows.map((r) => [r.weight, r['R@5'].toFixed(2), r['NDCG@10'].toFixed(2)]),
    ),
  ].join('\n');
}

runIfMain(import.meta.url, run, render);
