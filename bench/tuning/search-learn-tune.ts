#!/usr/bin/env node
/**
 * Tunes learning from use on the ToolLens **training** queries only: one half is replayed as
 * searches followed by successful runs of their relevant tools (`aperture eval --learn`), the other
 * half is measured; the grid is the BM25F boost and length normalisation of the `learned` field and
 * the number of queries kept per tool. In process, on the modules of src/.
 *
 * `--hybrid`: the same halves with hybrid search and the built-in embedder, over the learned
 * queries that vote by meaning (`search.learning.similarQueries`) and the weight of their list
 * (`similarWeight`); the measured half is sampled (`--sample`, default 2000). Every query vector
 * is cached in `.aperture/` (scope bench:queries), so only the first run embeds.
 *
 *   npx tsx bench/tuning/search-learn-tune.ts [--benchmarks DIR] [--hybrid [--sample 2000]]
 */
import path from 'node:path';
import { cachingEmbedder, DEFAULT_BENCHMARKS, flag, option, ROOT, runIfMain, table } from '../lib/common.js';

const BOOSTS = [0.25, 0.5, 1];
const B = [0.75, 1];
const KEPT = [50, 200, 500, 1000];
const NEIGHBOURS = [5, 10, 20, 40];
const SIMILAR_WEIGHTS = [0.5, 1, 2, 4];

export async function run() {
  const benchmarks = option('benchmarks', DEFAULT_BENCHMARKS);
  const [{ runEvaluation }, data] = await Promise.all([
    import('../../src/composition/evaluation/run-evaluation.js'),
    import('../../src/sources/dataset/dataset-source.js'),
  ]);
  const dataset = await data.loadDataset(path.join(benchmarks, 'toollens'), 'queries_train.jsonl');
  // Alternate lines: both halves cover every part of the file.
  const learn = dataset.queries.filter((_, i) => i % 2 === 0);
  const measured = { tools: dataset.tools, queries: dataset.queries.filter((_, i) => i % 2 === 1) };
  const log = (line: any) => process.stderr.write(`${line}\n`);
  log(
    `search-learn-tune: learn from ${learn.length}, measure ${measured.queries.length} ToolLens training queries`,
  );
  if (flag('hybrid')) return runHybrid(runEvaluation, learn, measured, log);
  const rows: any[] = [];
  const before = await runEvaluation(measured, { settings: { strategy: 'bm25' }, k: 10 });
  rows.push({ setting: 'no learning', ...pick(before.metrics) });
  for (const kept of KEPT) {
    for (const boost of BOOSTS) {
      for (const b of B) {
        const report = await runEvaluation(measured, {
          settings: {
            strategy: 'bm25',
            bm25: { boosts: { learned: boost }, b: { learned: b } },
            learning: { enabled: true, maxQueriesPerTool: kept, halfLifeDays: 30 },
          },
          k: 10,
          learn,
        });
        rows.push({ setting: `kept ${kept}, boost ${boost}, b ${b}`, ...pick(report.metrics) });
        log(`  ${rows.at(-1).setting}: R@5 ${rows.at(-1)['R@5']}`);
      }
    }
  }
  return { learn: learn.length, measured: measured.queries.length, rows };
}

async function runHybrid(runEvaluation: any, learn: any, measured: any, log: any) {
  const [embedding, state] = await Promise.all([
    import('../../src/operations/embedding/use-lite-embedder.js'),
    import('../../src/operations/state/sqlite-state-store.js'),
  ]);
  const sample = option('sample', 2000);
  const step = measured.queries.length / Math.min(sample, measured.queries.length);
  const queries = Array.from(
    { length: Math.min(sample, measured.queries.length) },
    (_, i) => measured.queries[Math.floor(i * step)],
  );
  const store = new state.SqliteStateStore(path.join(ROOT, '.aperture'));
  const embedder = cachingEmbedder(await embedding.createUseLiteEmbedder(), store);
  const learning = (similarQueries: any, similarWeight: any) => ({
    enabled: true,
    maxQueriesPerTool: 500,
    halfLifeDays: 30,
    similarQueries,
    similarWeight,
    maxQueryVectors: 20_000,
  });
  const evaluate = async (setting: any, settings: any, withLearning = true) => {
    const report = await runEvaluation(
      { tools: measured.tools, queries },
      { settings, embedder, vectorCache: store, k: 10, ...(withLearning ? { learn } : {}) },
    );
    rows.push({ setting, ...pick(report.metrics) });
    log(`  ${setting}: R@5 ${rows.at(-1)['R@5']}`);
  };
  const rows: any = [];
  await evaluate('bm25, no learning', { strategy: 'bm25' }, false);
  await evaluate('hybrid, no learning', { strategy: 'hybrid' }, false);
  await evaluate('bm25, learned', { strategy: 'bm25', learning: learning(0, 0) });
  await evaluate('hybrid, learned words only', { strategy: 'hybrid', learning: learning(0, 0) });
  for (const neighbours of NEIGHBOURS) {
    for (const weight of SIMILAR_WEIGHTS) {
      await evaluate(`hybrid, ${neighbours} similar queries, weight ${weight}`, {
        strategy: 'hybrid',
        learning: learning(neighbours, weight),
      });
    }
  }
  await embedder.close?.();
  store.close();
  return { learn: learn.length, measured: queries.length, rows };
}

const pick = (m: any) => ({ 'R@5': m['R@5'], 'NDCG@10': m['NDCG@10'] });

export function render(results: any) {
  return [
    `## Learning from use on ToolLens train (learn ${results.learn}, measure ${results.measured})`,
    '',
    table(
      ['setting', 'R@5', 'NDCG@10'],
      results.rows.map((r: any) => [r.setting, r['R@5'].toFixed(2), r['NDCG@10'].toFixed(2)]),
    ),
  ].join('\n');
}

runIfMain(import.meta.url, run, render);
