import { performance } from 'node:perf_hooks';
import { Catalog } from '../../catalog/catalog.js';
import type { LearnedQueries } from '../../discovery/learned-queries.js';
import type { SemanticIndex } from '../../discovery/semantic-index.js';
import { RunPipeline } from '../../execution/run-pipeline.js';
import { GatewayError, toGatewayError } from '../../foundation/model/gateway-error.js';
import type { Embedder } from '../../foundation/ports/embedder.js';
import { MemoryStateStore } from '../../foundation/ports/memory-state-store.js';
import type { StateStore } from '../../foundation/ports/state-store.js';
import { SchemaValidator } from '../../foundation/schema/schema-validator.js';
import { type Dataset, type DatasetQuery, datasetEntries } from '../../sources/dataset/dataset-source.js';
import { createSearchStack, type SearchSettings } from '../search-stack.js';
import { ToolScope } from '../tool-scope.js';
import { completenessAt, ndcgAt, recallAt, reciprocalRank } from './retrieval-metrics.js';

export interface EvaluationOptions {
  /** Search settings (strategy, BM25F parameters, semantic weight, learning), as in the config. */
  settings: SearchSettings;
  /** The embedder of `semantic` and `hybrid`. */
  embedder?: Embedder;
  /**
   * Where tool vectors are cached between runs. Default: memory (nothing kept). Only vectors: what
   * search learns during a run (failures, learned queries) stays in memory, so runs stay independent.
   */
  vectorCache?: StateStore;
  /**
   * Labelled queries replayed first, as if agents had searched each and then successfully run its
   * relevant tools (learning from use).
   */
  learn?: readonly DatasetQuery[];
  /** Ranked results kept per query (at least 10, for the @10 metrics). */
  k: number;
  /** Called every so often on long runs. */
  onProgress?: (done: number, total: number) => void;
  /** Called as tool vectors are computed. */
  onEmbedProgress?: (embedded: number, total: number) => void;
  /** Called every so often while learning queries are replayed. */
  onLearnProgress?: (done: number, total: number) => void;
  /** Called as the queries to replay are embedded (strategies with vectors). */
  onQueryEmbedProgress?: (embedded: number, total: number) => void;
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
  /** The strategy asked for, and what answered the queries (`bm25` when vectors were missing). */
  strategy: string;
  answeredBy: string[];
  /** Queries replayed by `learn`, and tools that learned from them. */
  learned?: { queries: number; tools: number };
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
export async function runEvaluation(dataset: Dataset, options: EvaluationOptions): Promise<EvaluationReport> {
  const catalog = new Catalog();
  const { entries, datasetIdOf } = datasetEntries(dataset.tools);
  catalog.replaceSource('dataset', entries);
  const stack = createSearchStack({
    catalog,
    settings: options.settings,
    store: new MemoryStateStore(),
    ...(options.vectorCache ? { vectorCache: options.vectorCache } : {}),
    ...(options.embedder ? { embedder: options.embedder } : {}),
    ...(options.onEmbedProgress ? { onEmbedProgress: options.onEmbedProgress } : {}),
  });
  const { search } = stack;
  search.refresh();
  await stack.semantic?.whenIdle();
  const lastError = stack.semantic?.status().lastError;
  if (lastError) throw new GatewayError('backend_unavailable', `embedding the tools failed: ${lastError}`);
  const pipeline = new RunPipeline({ catalog, validator: new SchemaValidator() });
  const scope = new ToolScope({ catalog, search, pipeline, maxChainSteps: 1 });
  const limit = Math.min(100, Math.max(10, options.k));
  if (options.learn && stack.semantic) {
    await embedAhead(stack.semantic, options.learn, options.onQueryEmbedProgress);
  }
  const learned = options.learn
    ? await replayLearning(scope, stack.learned, options.learn, datasetIdOf, options.onLearnProgress)
    : undefined;
  // Learned queries are embedded in the background: measure with all of them.
  await stack.memory?.whenIdle();
  const memoryError = stack.memory?.status().lastError;
  if (memoryError)
    throw new GatewayError('backend_unavailable', `embedding learned queries failed: ${memoryError}`);
  stack.close();

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
  const answeredBy = new Set<string>();
  const every = Math.max(1, Math.floor(dataset.queries.length / 20));
  for (const [index, query] of dataset.queries.entries()) {
    const started = performance.now();
    const page = await scope.search({ query: query.query, limit });
    answeredBy.add(page.strategy);
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
    answeredBy: [...answeredBy],
    ...(learned ? { learned } : {}),
    tools: catalog.size,
    queries: dataset.queries.length,
    metrics,
    latencyMs: { p50: at(0.5), p95: at(0.95) },
    runs,
  };
}

/** Queries per embedding call when embedding ahead. */
const EMBED_AHEAD_BATCH = 64;

/**
 * Embeds the queries to replay in batches, before the replay: their vectors are cached with the
 * tool vectors, where each replayed search then finds its own — rather than one embedding call per
 * search (ToolLens's 16,893 training queries: minutes instead of most of half an hour).
 */
async function embedAhead(
  semantic: SemanticIndex,
  queries: readonly DatasetQuery[],
  onProgress: ((embedded: number, total: number) => void) | undefined,
): Promise<void> {
  const texts = [...new Set(queries.map((query) => query.query))];
  for (let start = 0; start < texts.length; start += EMBED_AHEAD_BATCH) {
    try {
      await semantic.vectorsOf(texts.slice(start, start + EMBED_AHEAD_BATCH));
    } catch (error) {
      throw new GatewayError(
        'backend_unavailable',
        `embedding the queries to replay failed: ${toGatewayError(error).message}`,
        {
          cause: error,
        },
      );
    }
    onProgress?.(Math.min(start + EMBED_AHEAD_BATCH, texts.length), texts.length);
  }
}

/** Pages of results an agent looks through for a tool before giving up, when replaying. */
const REPLAY_PAGES = 5;

/**
 * Replays labelled queries as agents would have used them: each is searched in a session of its
 * own, paging on (default page size, up to {@link REPLAY_PAGES} pages) until every relevant tool
 * was listed, and every relevant tool listed is run successfully — the search-then-run signal the
 * gateway learns from. A relevant tool search never lists teaches nothing.
 */
async function replayLearning(
  scope: ToolScope,
  learned: LearnedQueries | undefined,
  queries: readonly DatasetQuery[],
  datasetIdOf: ReadonlyMap<string, string>,
  onProgress: ((done: number, total: number) => void) | undefined,
): Promise<{ queries: number; tools: number }> {
  if (!learned)
    throw new GatewayError('invalid_request', 'learning is disabled (search.learning.enabled: false)');
  const catalogIdOf = new Map([...datasetIdOf].map(([catalogId, datasetId]) => [datasetId, catalogId]));
  const every = Math.max(1, Math.floor(queries.length / 20));
  for (const [index, query] of queries.entries()) {
    const session = `learn-${index}`;
    const wanted = new Set(query.relevant.flatMap((id) => catalogIdOf.get(id) ?? []));
    let cursor: string | undefined;
    for (let page = 0; page < REPLAY_PAGES && wanted.size > 0; page++) {
      const result = await scope.search({ query: query.query, session, ...(cursor ? { cursor } : {}) });
      for (const tool of result.tools) {
        if (!wanted.delete(tool.id)) continue;
        learned.noteRun(session, tool.id, true);
      }
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    if ((index + 1) % every === 0) onProgress?.(index + 1, queries.length);
  }
  return { queries: queries.length, tools: learned.size };
}
