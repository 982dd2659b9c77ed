import { integerAtLeast } from '../../foundation/util/option-checks.js';

/** The bounds of a cache store, in memory or in Redis (the config's `cache` section defaults to them). */
export const CACHE_STORE_DEFAULTS = Object.freeze({
  maxEntries: 1000,
  /** UTF-8 bytes of keys and values. */
  maxBytes: 64 * 1024 * 1024,
});

/**
 * A store's bounds from its options: the defaults where unset, each a whole number of at least 1
 * (else `config_invalid` naming `owner`'s option).
 */
export function cacheStoreBounds(
  options: { maxEntries?: number | undefined; maxBytes?: number | undefined },
  owner: string,
): { maxEntries: number; maxBytes: number } {
  return {
    maxEntries: integerAtLeast(
      options.maxEntries ?? CACHE_STORE_DEFAULTS.maxEntries,
      1,
      `${owner} maxEntries`,
    ),
    maxBytes: integerAtLeast(options.maxBytes ?? CACHE_STORE_DEFAULTS.maxBytes, 1, `${owner} maxBytes`),
  };
}

/** What a {@link CacheStore} holds and has thrown away, for metrics and tests. */
export interface CacheStoreStats {
  /** Entries held now (expired ones not yet swept included). */
  entries: number;
  /** Bytes held now: the UTF-8 length of every key and value. */
  bytes: number;
  /** Entries dropped to make room (least recently used first). */
  evictions: number;
  /** Entries found expired and dropped. */
  expirations: number;
}

/**
 * The result cache's storage port: a bounded map from keys to JSON text with a time to live per
 * entry. Values are text, not objects, so that every hit hands out a fresh copy (no caller can
 * change what another one gets) and so that a shared store (Redis) can implement it unchanged.
 * Asynchronous for the same reason; {@link InMemoryCacheStore} is the reference implementation and
 * `cache-store.contract.ts` the behaviour every implementation must have.
 */
export interface CacheStore {
  /** The value under `key`, or undefined when there is none or it expired. A hit counts as a use. */
  get(key: string): Promise<string | undefined>;
  /**
   * Stores `value` under `key` for `ttlMs`, replacing what was there, evicting the least recently
   * used entries if the store is full. Resolves false (storing nothing) when the entry alone is
   * larger than the store may hold.
   */
  set(key: string, value: string, ttlMs: number): Promise<boolean>;
  /** Removes `key`; resolves whether it was there. */
  delete(key: string): Promise<boolean>;
  /** Removes every key that begins with `prefix`; resolves how many there were. */
  deletePrefix(prefix: string): Promise<number>;
  clear(): Promise<void>;
  stats(): CacheStoreStats;
}
