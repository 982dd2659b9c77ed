#!/usr/bin/env node
/**
 * Tunes hybrid search on the ToolLens **training** queries only: the weight of the semantic list
 * in weighted reciprocal-rank fusion (BM25 weighs 1) and the RRF constant k. Every ranked list is
 * computed once; fusion is replayed per setting. In process, on the modules of src/; tool and query vectors are cached in `.aperture/`.
 *
 *   npx tsx bench/tuning/search-hybrid-tune.ts [--benchmarks DIR] [--sample 2000]
 */
import path from 'node:path';
import { cachingEmbedder, DEFAULT_BENCHMARKS, option, ROOT, runIfMain, table } from '../lib/common.js';

const WEIGHTS = [0.1, 0.25, 0.5, 0.75, 1, 1.5, 2];
const RRF_KS = [10, 30, 60, 100];
const DEPTH = 100;

export async function run() {
  const benchmarks = option('benchmarks', DEFAULT_BENCHMARKS);
  const sample = option('sample', 2000);
  const [{ Bm25Index }, { SemanticIndex }, data, metrics, fusion, embedding, state] = await Promise.all([
    import('../../src/discovery/bm25-index.js'),
    import('../../src/discovery/semantic-index.js'),
    import('../../src/sources/dataset/dataset-source.js'),
    import('../../src/discovery/evaluation/retrieval-metrics.js'),
    import('../../src/discovery/rank-fusion.js'),
    import('../../src/operations/embedding/use-lite-embedder.js'),
    import('../../src/operations/state/sqlite-state-store.js'),
  ]);
  const dataset = await data.loadDataset(path.join(benchmarks, 'toollens'), 'queries_train.jsonl');
  const step = dataset.queries.length / Math.min(sample, dataset.queries.length);
  const queries = Array.from(
    { length: Math.min(sample, dataset.queries.length) },
    (_, i) => dataset.queries[Math.floor(i * step)]!,
  );
  const { entries, datasetIdOf } = data.datasetEntries(dataset.tools);
  const log = (line: any) => process.stderr.write(`${line}\n`);
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
  // Query vectors are cached too (cachingEmbedder), so that a second run is quick.
  const queryEmbedder = cachingEmbedder(embedder, store);
  const nearest: any = [];
  for (let i = 0; i < queries.length; i += 32) {
    const batch = queries.slice(i, i + 32);
    const vectors = await queryEmbedder.embed(batch.map((q) => q.query));
    for (const vector of vectors) nearest.push(await semantic.search(vector, { limit: DEPTH }));
    log(`  ${Math.min(i + 32, queries.length)}/${queries.length} queries`);
  }
  const score = (lists: any) => {
    let r5 = 0;
    let ndcg10 = 0;
    lists.forEach((hits: any, i: any) => {
      const ranked = hits.slice(0, 10).map((hit: any) => datasetIdOf.get(hit.id) ?? hit.id);
      const relevant = new Set(queries[i]!.relevant);
      r5 += metrics.recallAt(ranked, relevant, 5);
      ndcg10 += metrics.ndcgAt(ranked, relevant, 10);
    });
    return { 'R@5': (r5 / lists.length) * 100, 'NDCG@10': (ndcg10 / lists.length) * 100 };
  };
  const rows: Record<string, number | string>[] = [
    { weight: 'bm25 alone', k: '', ...score(lexical) },
    { weight: 'semantic alone', k: '', ...score(nearest) },
  ];
  for (const k of RRF_KS) {
    for (const weight of WEIGHTS) {
      const fused = lexical.map((hits, i) =>
        fusion.fuseRanks(
          [
            { hits, weight: 1 },
            { hits: nearest[i], weight },
          ],
          k,
        ),
      );
      rows.push({ weight, k, ...score(fused) });
    }
  }
  store.close();
  return { queries: queries.length, rows };
}

export function render(results: any) {
  return [
    `## Hybrid fusion on ToolLens train (${results.queries} queries)`,
    '',
    table(
      ['semantic weight', 'RRF k', 'R@5', 'NDCG@10'],
      results.rows.map((r: any) => [r.weight, r.k, r['R@5'].toFixed(2), r['NDCG@10'].toFixed(2)]),
    ),
  ].join('\n');
}

runIfMain(import.meta.url, run, render);
