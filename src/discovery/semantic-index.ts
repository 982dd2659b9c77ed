import { createHash } from 'node:crypto';
import { GatewayError } from '../foundation/model/gateway-error.js';
import type { Tool } from '../foundation/model/tool.js';
import type { Embedder } from '../foundation/ports/embedder.js';
import type { Logger } from '../foundation/ports/logger.js';
import type { StateStore } from '../foundation/ports/state-store.js';
import { BackgroundBacklog, firstOf } from './background-backlog.js';
import type { SearchHit } from './search-index.js';
import { toolText } from './tool-text.js';
import { VectorIndex } from './vector-index.js';

/** The state-store scope of cached tool vectors, keyed by model and text hash. */
export const EMBEDDING_SCOPE = 'embeddings';

export interface SemanticIndexOptions {
  embedder: Embedder;
  /** Where tool vectors are cached across restarts. */
  store: StateStore;
  /** Tools per embedding call. Default 32. */
  batchSize?: number;
  /** Wait before retrying after the embedder failed. Default 30 s. */
  retryMs?: number;
  /** How long a query may take to embed before search answers without it. Default 5 s. */
  queryTimeoutMs?: number;
  /** Told how many tools are embedded as the backlog shrinks. */
  onProgress?: (embedded: number, total: number) => void;
  log?: Logger;
}

/** How far embedding has got. */
export interface SemanticStatus {
  model: string;
  /** Tools with a vector for their current text. */
  embedded: number;
  /** Tools waiting for one. */
  pending: number;
  /** The last embedding failure, until a batch succeeds again. */
  lastError?: string;
}

const QUERY_CACHE_SIZE = 512;

/**
 * The semantic half of search. Tool vectors are computed in the background, a batch at a time,
 * and cached in the state store under `<model>|sha256(text)`: a restart, or a tool that comes back
 * unchanged, re-embeds nothing. `ready` is true once every tool has a vector for its current text;
 * until then search answers with BM25 alone. Query vectors are kept in a small LRU cache.
 */
export class SemanticIndex {
  private readonly vectors = new VectorIndex();
  /** Per tool id: the cache key of the text its vector must match. */
  private readonly wanted = new Map<string, { tool: Tool; key: string }>();
  private readonly pending = new Set<string>();
  private readonly queryCache = new Map<string, Float32Array>();
  private readonly backlog: BackgroundBacklog<{ tool: Tool; key: string }>;

  constructor(private readonly options: SemanticIndexOptions) {
    this.backlog = new BackgroundBacklog(
      {
        next: (size) => firstOf(this.pending, size).map((id) => this.wanted.get(id)!),
        run: (batch) => this.embedBatch(batch),
        onFailure: (err) =>
          options.log?.warn(
            { err, pending: this.pending.size },
            'embedding tools failed; search answers with BM25 alone until a retry succeeds',
          ),
        onDrained: () =>
          options.log?.info({ model: this.model, tools: this.wanted.size }, 'tool vectors ready'),
      },
      { batchSize: options.batchSize ?? 32, retryMs: options.retryMs ?? 30_000 },
    );
  }

  get model(): string {
    return this.options.embedder.model;
  }

  /** True when every indexed tool has its vector. */
  get ready(): boolean {
    return this.pending.size === 0 && this.wanted.size > 0;
  }

  status(): SemanticStatus {
    return {
      model: this.model,
      embedded: this.wanted.size - this.pending.size,
      pending: this.pending.size,
      ...(this.backlog.lastError ? { lastError: this.backlog.lastError } : {}),
    };
  }

  /** Adds or replaces a tool: a cached vector is used at once, otherwise it joins the backlog. */
  upsert(tool: Tool): void {
    const key = this.cacheKey(toolText(tool));
    const known = this.wanted.get(tool.id);
    this.wanted.set(tool.id, { tool, key });
    const current = this.vectors.get(tool.id);
    if (known?.key === key && current) {
      this.vectors.set(tool, current);
      return;
    }
    const cached = this.options.store.get(EMBEDDING_SCOPE, key);
    if (isVector(cached)) {
      this.vectors.set(tool, toFloats(cached));
      this.pending.delete(tool.id);
      return;
    }
    this.vectors.remove(tool.id);
    this.pending.add(tool.id);
    this.backlog.schedule();
  }

  remove(id: string): void {
    this.wanted.delete(id);
    this.pending.delete(id);
    this.vectors.remove(id);
  }

  /** Resolves when the backlog is empty (or the embedder failed on it: see `status().lastError`). */
  async whenIdle(): Promise<void> {
    await this.backlog.whenIdle();
  }

  /**
   * The `limit` tools nearest the query (a text, or its vector), best first. Throws what the
   * embedder throws; the caller falls back to lexical search.
   */
  async search(
    query: string | Float32Array,
    options: {
      limit: number;
      filter?: ((tool: Tool) => boolean) | undefined;
      signal?: AbortSignal | undefined;
    },
  ): Promise<SearchHit[]> {
    const vector = typeof query === 'string' ? await this.queryVector(query, options.signal) : query;
    return this.vectors.search(vector, options);
  }

  /**
   * The vectors of texts (tool texts, learned queries) by this model: from the state-store cache,
   * else the recent queries, else embedded in one call; all cached in the store (a failing store is
   * logged: the vectors still serve). Throws what the embedder throws.
   */
  async vectorsOf(texts: readonly string[]): Promise<Float32Array[]> {
    const keys = texts.map((text) => this.cacheKey(text));
    const stored = this.options.store.getMany(EMBEDDING_SCOPE, keys);
    const vectors: (Float32Array | undefined)[] = [];
    const rows: [string, Uint8Array][] = [];
    const missing: number[] = [];
    texts.forEach((text, i) => {
      const bytes = stored.get(keys[i]!);
      if (isVector(bytes)) {
        vectors[i] = toFloats(bytes);
        return;
      }
      // A recent query's vector is at hand, but not yet stored for the next restart.
      vectors[i] = this.queryCache.get(text);
      if (vectors[i]) rows.push([keys[i]!, toBytes(vectors[i])]);
      else missing.push(i);
    });
    if (missing.length > 0) {
      const embedded = await this.options.embedder.embed(missing.map((i) => texts[i]!));
      missing.forEach((i, j) => {
        const vector = embedded[j];
        if (!vector) throw new GatewayError('execution_failed', 'the embedder returned too few vectors');
        vectors[i] = vector;
        rows.push([keys[i]!, toBytes(vector)]);
      });
    }
    if (rows.length > 0) {
      try {
        this.options.store.setMany(EMBEDDING_SCOPE, rows);
      } catch (error) {
        // The vectors still serve this process; only the next restart pays for them again.
        this.options.log?.warn({ err: (error as Error).message }, 'caching vectors failed');
      }
    }
    return vectors as Float32Array[];
  }

  /** Stops background work; vectors already cached stay in the store. */
  close(): void {
    this.backlog.close();
  }

  /**
   * The vector of a query: a recent one's from memory, a text already stored (a learned query, say)
   * from the state store, else embedded; embedding times out after `queryTimeoutMs`.
   */
  async queryVector(query: string, signal?: AbortSignal): Promise<Float32Array> {
    const cached = this.queryCache.get(query);
    if (cached) {
      // Refresh its place in the LRU order.
      this.queryCache.delete(query);
      this.queryCache.set(query, cached);
      return cached;
    }
    const stored = this.options.store.get(EMBEDDING_SCOPE, this.cacheKey(query));
    let vector = isVector(stored) ? toFloats(stored) : undefined;
    if (!vector) {
      const timeout = AbortSignal.timeout(this.options.queryTimeoutMs ?? 5000);
      [vector] = await this.options.embedder.embed([query], {
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      if (!vector)
        throw new GatewayError('execution_failed', 'the embedder returned no vector for the query');
    }
    this.queryCache.set(query, vector);
    if (this.queryCache.size > QUERY_CACHE_SIZE) this.queryCache.delete(this.queryCache.keys().next().value!);
    return vector;
  }

  private cacheKey(text: string): string {
    return `${this.model}|${createHash('sha256').update(text).digest('hex')}`;
  }

  /** Embeds one batch of the backlog (cached by `vectorsOf`). */
  private async embedBatch(batch: { tool: Tool; key: string }[]): Promise<void> {
    // The text is made again rather than kept: 10,000 tools' texts are megabytes.
    const vectors = await this.vectorsOf(batch.map((entry) => toolText(entry.tool)));
    batch.forEach((entry, i) => {
      // The tool may have changed or gone while its batch was embedding: keep only current texts.
      const current = this.wanted.get(entry.tool.id);
      if (current?.key !== entry.key) return;
      this.vectors.set(current.tool, vectors[i]!);
      this.pending.delete(entry.tool.id);
    });
    this.options.onProgress?.(this.wanted.size - this.pending.size, this.wanted.size);
  }
}

function toBytes(vector: Float32Array): Uint8Array {
  return new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
}

/**
 * Whether a stored value can be a vector: bytes of whole float32s. Anything else (a damaged or
 * foreign row) is a miss and gets embedded again, rather than a RangeError in the middle of search.
 */
function isVector(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array && value.byteLength > 0 && value.byteLength % 4 === 0;
}

function toFloats(bytes: Uint8Array): Float32Array {
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}
