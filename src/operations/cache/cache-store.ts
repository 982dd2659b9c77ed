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
  clear(): Promise<void>;
  stats(): CacheStoreStats;
}
