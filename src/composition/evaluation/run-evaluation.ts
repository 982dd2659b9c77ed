import { performance } from 'node:perf_hooks';
import { Catalog } from '../../catalog/catalog.js';
import type { Bm25IndexOptions } from '../../discovery/bm25-index.js';
import {
  completenessAt,
  ndcgAt,
  recallAt,
  reciprocalRank,
} from '../../discovery/evaluation/retrieval-metrics.js';
import { ToolSearch } from '../../discovery/tool-search.js';
import { RunPipeline } from '../../execution/run-pipeline.js';
import { SchemaValidator } from '../../foundation/schema-validator.js';
import { type Dataset, datasetEntries } from '../../sources/dataset/dataset-source.js';
import { ToolScope } from '../tool-scope.js';

export interface EvaluationOptions {
  strategy: 'bm25' | 'lexical';
  /** BM25F parameters (strategy `bm25`); default the tuned defaults. */
  bm25?: Bm25IndexOptions;
  /** Ranked results kept per query (at least 10, for the @10 metrics). */
  k: number;
  /** Called every so often on long runs. */
  onProgress?: (done: number, total: number) => void;
}

/** Metrics in percent (0–100), averaged over queries. */
export interface EvaluationMetrics {
  'R@1': number;
  'R@5': number;
  'R@10': number;
  'NDCG@5': number;
  'NDCG@10': number;
  'COMP@5': number;
  'COMP@10': number;
  MRR: number;
}

export interface EvaluationReport {
  strategy: string;
  tools: number;
  queries: number;
  metrics: EvaluationMetrics;
  latencyMs: { p50: number; p95: number };
  /** One line per query: the dataset's own ids, best first. */
  runs: { id: string; ranked: string[] }[];
}

/**
 * Evaluates search on a labelled dataset: the tools are loaded into a catalog as a source would
 * load them and searched through `ToolScope.search`, the same path as `search_tools`.
 */
export function runEvaluation(dataset: Dataset, options: EvaluationOptions): EvaluationReport {
  const catalog = new Catalog();
  const { entries, datasetIdOf } = datasetEntries(dataset.tools);
  catalog.replaceSource('dataset', entries);
  const search = new ToolSearch(catalog, {
    strategy: options.strategy,
    ...(options.bm25 ? { bm25: options.bm25 } : {}),
  });
  search.refresh();
  const pipeline = new RunPipeline({ catalog, validator: new SchemaValidator() });
  const scope = new ToolScope({ catalog, search, pipeline, maxChainSteps: 1 });
  const limit = Math.min(100, Math.max(10, options.k));

  const sums: EvaluationMetrics = {
    'R@1': 0,
    'R@5': 0,
    'R@10': 0,
    'NDCG@5': 0,
    'NDCG@10': 0,
    'COMP@5': 0,
    'COMP@10': 0,
    MRR: 0,
  };
  const latencies: number[] = [];
  const runs: EvaluationReport['runs'] = [];
  const every = Math.max(1, Math.floor(dataset.queries.length / 20));
  for (const [index, query] of dataset.queries.entries()) {
    const started = performance.now();
    const page = scope.search({ query: query.query, limit });
    latencies.push(performance.now() - started);
    const ranked = page.tools.map((t) => datasetIdOf.get(t.id) ?? t.id);
    runs.push({ id: query.id, ranked });
    const relevant = new Set(query.relevant);
    sums['R@1'] += recallAt(ranked, relevant, 1);
    sums['R@5'] += recallAt(ranked, relevant, 5);
    sums['R@10'] += recallAt(ranked, relevant, 10);
    sums['NDCG@5'] += ndcgAt(ranked, relevant, 5);
    sums['NDCG@10'] += ndcgAt(ranked, relevant, 10);
    sums['COMP@5'] += completenessAt(ranked, relevant, 5);
    sums['COMP@10'] += completenessAt(ranked, relevant, 10);
    sums.MRR += reciprocalRank(ranked, relevant);
    if ((index + 1) % every === 0) options.onProgress?.(index + 1, dataset.queries.length);
  }
  const n = Math.max(1, dataset.queries.length);
  const metrics = Object.fromEntries(
    Object.entries(sums).map(([key, sum]) => [key, Math.round((sum / n) * 10_000) / 100]),
  ) as unknown as EvaluationMetrics;
  latencies.sort((a, b) => a - b);
  const at = (p: number) =>
    Math.round((latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0) * 1000) /
    1000;
  return {
    strategy: search.strategy,
    tools: catalog.size,
    queries: dataset.queries.length,
    metrics,
    latencyMs: { p50: at(0.5), p95: at(0.95) },
    runs,
  };
}
