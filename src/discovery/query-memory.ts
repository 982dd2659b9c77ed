import type { Logger } from '../foundation/ports/logger.js';
import { BackgroundBacklog, firstOf } from './background-backlog.js';
import type { LearnedQueries } from './learned-queries.js';
import { DEFAULT_QUERY_MEMORY } from './search-defaults.js';
import { compareHits, type SearchHit } from './search-index.js';
import type { SemanticIndex } from './semantic-index.js';
import { VectorIndex } from './vector-index.js';

/** How far embedding learned queries has got (`/readyz`). */
export interface QueryMemoryStatus {
  /** Learned queries with a vector. */
  queries: number;
  /** Learned queries waiting for one. */
  pending: number;
  /** The last embedding failure, until a batch succeeds again. */
  lastError?: string;
}

export interface QueryMemoryOptions {
  learned: LearnedQueries;
  /** Embeds the learned queries with the model of the tool vectors, and caches them. */
  semantic: SemanticIndex;
  /** Learned queries that vote in each search. Default {@link DEFAULT_QUERY_MEMORY}. */
  neighbours?: number;
  /** Learned queries held as vectors; past it the least recently learned go. Default {@link DEFAULT_QUERY_MEMORY}. */
  maxQueries?: number;
  /** Queries per embedding call. Default 32. */
  batchSize?: number;
  /** Wait before retrying after the embedder failed. Default 30 s. */
  retryMs?: number;
  log?: Logger;
}

/**
 * Learning from use, by meaning. Every learned query (see {@link LearnedQueries}) gets a vector; a
 * search compares its query with them, and each of the `neighbours` nearest votes for the tools it
 * was learned for, by similarity × learned weight. A query worded like no tool, but like one that
 * led to a successful run before, finds that run's tool — where the learned BM25F field needs
 * shared words. Vectors come from the semantic index (the same model; cached in the state store,
 * so a restart embeds nothing), computed in the background as queries are learned.
 */
export class QueryMemory {
  /** Rows keyed by the case-folded query, as {@link LearnedQueries.toolsOf} reads it. */
  private readonly vectors = new VectorIndex<{ id: string }>();
  /** Queries waiting for a vector, by key. */
  private readonly pending = new Map<string, string>();
  /** Every query held or pending, least recently learned first (what goes when the memory is full). */
  private readonly order = new Set<string>();
  private readonly backlog: BackgroundBacklog<[key: string, text: string]>;
  private readonly unsubscribe: () => void;

  constructor(private readonly options: QueryMemoryOptions) {
    this.backlog = new BackgroundBacklog(
      {
        // Learning happens on a run's path: the backlog is embedded after it, never in it.
        next: (size) => firstOf(this.pending, size),
        run: (batch) => this.embedBatch(batch),
        onFailure: (err) =>
          options.log?.warn(
            { err, pending: this.pending.size },
            'embedding learned queries failed; retrying later',
          ),
      },
      { batchSize: options.batchSize ?? 32, retryMs: options.retryMs ?? 30_000 },
    );
    for (const text of options.learned.queries()) this.add(text);
    this.unsubscribe = options.learned.subscribe((_toolId, query) => this.add(query));
  }

  status(): QueryMemoryStatus {
    return {
      queries: this.vectors.size,
      pending: this.pending.size,
      ...(this.backlog.lastError ? { lastError: this.backlog.lastError } : {}),
    };
  }

  /**
   * Tools ranked by the votes of the learned queries nearest `vector` (a query's vector from the
   * semantic index). `filter` keeps tools that may be listed (those in the catalog, in scope).
   */
  search(vector: Float32Array, options: { limit: number; filter: (toolId: string) => boolean }): SearchHit[] {
    if (this.vectors.size === 0) return [];
    const votes = new Map<string, number>();
    const neighbours = this.options.neighbours ?? DEFAULT_QUERY_MEMORY.neighbours;
    for (const near of this.vectors.search(vector, { limit: neighbours })) {
      if (near.score <= 0) break;
      const tools = this.options.learned.toolsOf(near.id);
      if (tools.length === 0) this.forget(near.id); // dropped by every tool, or faded
      for (const { toolId, weight } of tools) {
        if (options.filter(toolId)) votes.set(toolId, (votes.get(toolId) ?? 0) + near.score * weight);
      }
    }
    return [...votes]
      .map(([id, score]) => ({ id, score }))
      .sort(compareHits)
      .slice(0, options.limit);
  }

  /** Resolves when every learned query has its vector (or the embedder failed: see `status()`). */
  async whenIdle(): Promise<void> {
    await this.backlog.whenIdle();
  }

  /** Stops background work and learning new queries. */
  close(): void {
    this.backlog.close();
    this.unsubscribe();
  }

  private add(text: string): void {
    const key = text.toLowerCase();
    const known = this.order.delete(key);
    this.order.add(key); // the most recently learned goes last
    if (known) return;
    this.pending.set(key, text);
    if (this.order.size > (this.options.maxQueries ?? DEFAULT_QUERY_MEMORY.maxQueries)) {
      this.forget(this.order.values().next().value!);
    }
    this.backlog.schedule();
  }

  private forget(key: string): void {
    this.order.delete(key);
    this.pending.delete(key);
    this.vectors.remove(key);
  }

  /** Embeds one batch of learned queries. */
  private async embedBatch(batch: [key: string, text: string][]): Promise<void> {
    const vectors = await this.options.semantic.vectorsOf(batch.map(([, text]) => text));
    batch.forEach(([key], i) => {
      // Forgotten while its batch was embedding: leave it out.
      if (this.pending.delete(key)) this.vectors.set({ id: key }, vectors[i]!);
    });
  }
}
