import type { Tool, ToolResult } from '../../foundation/model/tool.js';
import { isInputRequired } from '../../foundation/ports/client-channel.js';
import { type Logger, silentLogger } from '../../foundation/ports/logger.js';
import type { RunCall, RunMiddleware } from '../../foundation/ports/run-middleware.js';
import { integerAtLeast, oneOf } from '../../foundation/util/option-checks.js';
import { type CachePartition, callerPartition, resultCacheKey } from './cache-key.js';
import { isCacheable } from './cache-policy.js';
import type { CacheStore } from './cache-store.js';
import { InMemoryCacheStore } from './in-memory-cache-store.js';

/** The cache's defaults (the config's `cache` section defaults to them). */
export const RESULT_CACHE_DEFAULTS = Object.freeze({
  /** How long a result is served from the cache. */
  ttlMs: 60_000,
  /** Larger results are not cached, so one big answer cannot flush the rest. */
  maxEntryBytes: 1024 * 1024,
});

export interface ResultCacheOptions {
  /** How long a result is served from the cache. Default 60000 ms. */
  ttlMs?: number;
  /** Bounds of the default in-memory store: entries (default 1000) and bytes (default 64 MiB). */
  maxEntries?: number;
  maxBytes?: number;
  /** Results whose JSON is larger are not cached, so one big answer cannot flush the rest. Default 1 MiB. */
  maxEntryBytes?: number;
  /** Who may share a cached result. Default `scope`. */
  partition?: CachePartition;
  /** Where results are kept. Default an {@link InMemoryCacheStore} with the bounds above. */
  store?: CacheStore;
  /**
   * Per-tool settings (`overrides`' `cache: { ttlMs, enabled }`, `cache.tools` globs): `enabled`
   * over the annotations' verdict, `ttlMs` over the default. Undefined: the defaults.
   */
  toolSettings?: (tool: Tool) => ToolCacheSettings | undefined;
  /** Called on every lookup of a cacheable call (metrics hook). */
  onLookup?: (event: CacheLookupEvent) => void;
  log?: Logger;
}

/** A tool's own cache settings; each absent one falls back to the default. */
export interface ToolCacheSettings {
  enabled?: boolean | undefined;
  ttlMs?: number | undefined;
}

/** What {@link ResultCache.invalidate} drops: one tool's entries, one namespace's, or (neither) all. */
export interface CacheInvalidation {
  tool?: string | undefined;
  namespace?: string | undefined;
}

/** One lookup: the tool and whether its result came from the cache. */
export interface CacheLookupEvent {
  toolId: string;
  outcome: 'hit' | 'miss';
}

/** Counters of the cache middleware plus its store's figures. */
export interface ResultCacheStats {
  /** Cacheable calls answered from the cache. */
  hits: number;
  /** Cacheable calls that ran the tool. */
  misses: number;
  /** Calls of tools that are never cached (they ran, the cache was not asked). */
  bypassed: number;
  /** Results written to the store. */
  stores: number;
  entries: number;
  bytes: number;
  evictions: number;
  expirations: number;
  /** Hits and misses by tool id, for the per-tool hit ratio of `/metrics`. */
  byTool: ReadonlyMap<string, { hits: number; misses: number }>;
}

/**
 * The result cache: a run middleware that answers a repeated call of a read-only or idempotent
 * tool (see `cache-policy.ts`) with the stored result of an earlier one, for `ttlMs`. Keys are the
 * tool, the canonical arguments and the caller's scope (`cache-key.ts`). Only successful results
 * are stored — errors are thrown by the pipeline and never reach the store — and a failing store
 * degrades to running the tool, never to a failed call.
 */
export class ResultCache {
  readonly middleware: RunMiddleware;
  private readonly store: CacheStore;
  private readonly ttlMs: number;
  private readonly maxEntryBytes: number;
  private readonly partition: CachePartition;
  private readonly onLookup: ((event: CacheLookupEvent) => void) | undefined;
  private readonly log: Logger;
  private hits = 0;
  private misses = 0;
  private bypassed = 0;
  private stores = 0;
  private readonly byTool = new Map<string, { hits: number; misses: number }>();
  private readonly toolSettings: ((tool: Tool) => ToolCacheSettings | undefined) | undefined;

  constructor(options: ResultCacheOptions = {}) {
    this.ttlMs = integerAtLeast(options.ttlMs ?? RESULT_CACHE_DEFAULTS.ttlMs, 1, 'cache ttlMs');
    this.maxEntryBytes = integerAtLeast(
      options.maxEntryBytes ?? RESULT_CACHE_DEFAULTS.maxEntryBytes,
      1,
      'cache maxEntryBytes',
    );
    this.partition = oneOf(options.partition ?? 'scope', ['scope', 'identity'], 'cache partition');
    this.store =
      options.store ??
      new InMemoryCacheStore({
        ...(options.maxEntries === undefined ? {} : { maxEntries: options.maxEntries }),
        ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
      });
    this.onLookup = options.onLookup;
    this.toolSettings = options.toolSettings;
    this.log = options.log ?? silentLogger;
    this.middleware = (call, next) => this.run(call, next);
  }

  stats(): ResultCacheStats {
    return {
      hits: this.hits,
      misses: this.misses,
      bypassed: this.bypassed,
      stores: this.stores,
      ...this.store.stats(),
      byTool: this.byTool,
    };
  }

  /** Drops every cached result. */
  clear(): Promise<void> {
    return this.store.clear();
  }

  /**
   * Drops the entries of one tool (by id), of one namespace, or all of them. Keys begin with the
   * tool id (`cache-key.ts`), so both are a prefix; with a shared store (Redis) the entries are
   * gone for every gateway on it. Resolves how many entries were dropped (-1: all, uncounted).
   */
  async invalidate(which: CacheInvalidation = {}): Promise<number> {
    if (which.tool !== undefined) return this.store.deletePrefix(`${which.tool}\u0000`);
    if (which.namespace !== undefined) return this.store.deletePrefix(`${which.namespace}:`);
    await this.store.clear();
    return -1;
  }

  private async run(call: RunCall, next: () => Promise<ToolResult>): Promise<ToolResult> {
    const { tool, args, ctx } = call;
    const own = this.toolSettings?.(tool);
    if (!(own?.enabled ?? isCacheable(tool))) {
      this.bypassed++;
      return next();
    }
    const key = resultCacheKey(tool, args, callerPartition(ctx.caller, this.partition));
    const cached = await this.read(key);
    if (cached !== undefined) {
      this.hits++;
      this.countTool(tool.id).hits++;
      this.onLookup?.({ toolId: tool.id, outcome: 'hit' });
      return cached;
    }
    this.misses++;
    this.countTool(tool.id).misses++;
    this.onLookup?.({ toolId: tool.id, outcome: 'miss' });
    const result = await next();
    // A call cut short (timeout, cancellation) is not a result anyone asked for again.
    // Nor is a server's question (a round of input the client answers): the next call must ask it.
    // Stored before the answer goes back: the caller's next call may reach another replica
    // sharing the store, and must find it there (one store round trip, on a miss only).
    if (result.isError !== true && !ctx.signal.aborted && !isInputRequired(result))
      await this.write(key, result, own?.ttlMs ?? this.ttlMs);
    return result;
  }

  /** Tool ids are bounded by the catalog, so the map is too. */
  private countTool(toolId: string): { hits: number; misses: number } {
    let counts = this.byTool.get(toolId);
    if (!counts) {
      counts = { hits: 0, misses: 0 };
      this.byTool.set(toolId, counts);
    }
    return counts;
  }

  private async read(key: string): Promise<ToolResult | undefined> {
    try {
      const text = await this.store.get(key);
      return text === undefined ? undefined : (JSON.parse(text) as ToolResult);
    } catch (error) {
      this.log.warn({ err: String(error) }, 'cache read failed; running the tool');
      return undefined;
    }
  }

  /**
   * Stores a result; settles once the store answered (a store's commands are bounded by its own
   * timeout), and never throws: a failed write is logged and the call keeps its result.
   */
  private async write(key: string, result: ToolResult, ttlMs: number): Promise<void> {
    let text: string;
    try {
      text = JSON.stringify(result);
    } catch {
      return;
    }
    // UTF-16 length is a lower bound of UTF-8 bytes and exact for ASCII; cheap to compute.
    if (text.length > this.maxEntryBytes || Buffer.byteLength(text) > this.maxEntryBytes) return;
    await this.store.set(key, text, ttlMs).then(
      (stored) => {
        if (stored) this.stores++;
      },
      (error: unknown) => this.log.warn({ err: String(error) }, 'cache write failed'),
    );
  }
}

/** A result cache middleware with its counters (`resultCache(options).middleware`). */
export function resultCache(options: ResultCacheOptions = {}): ResultCache {
  return new ResultCache(options);
}
