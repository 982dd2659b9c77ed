import { type CacheStore, type CacheStoreStats, cacheStoreBounds } from './cache-store.js';

export interface InMemoryCacheStoreOptions {
  /** Most entries held at once. Default 1000. */
  maxEntries?: number;
  /** Most bytes (UTF-8 keys plus values) held at once. Default 64 MiB. */
  maxBytes?: number;
  /** The clock, in milliseconds (tests pass a fake one). Default `Date.now`. */
  now?: () => number;
}

interface Entry {
  value: string;
  bytes: number;
  expiresAt: number;
}

/**
 * A {@link CacheStore} in this process's memory: least recently used entries are evicted first
 * once either bound (entries or bytes) would be passed. A Map keeps insertion order, so moving an
 * entry to the end on every hit makes its first key the least recently used one.
 */
export class InMemoryCacheStore implements CacheStore {
  private readonly entries = new Map<string, Entry>();
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private readonly now: () => number;
  private bytes = 0;
  private evictions = 0;
  private expirations = 0;

  constructor(options: InMemoryCacheStoreOptions = {}) {
    ({ maxEntries: this.maxEntries, maxBytes: this.maxBytes } = cacheStoreBounds(
      options,
      'InMemoryCacheStore',
    ));
    this.now = options.now ?? Date.now;
  }

  async get(key: string): Promise<string | undefined> {
    return this.getNow(key);
  }

  /** The synchronous body of `get` (the in-memory store never needs to wait). */
  getNow(key: string): string | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.now()) {
      this.bytes -= entry.bytes;
      this.expirations++;
      return undefined;
    }
    this.entries.set(key, entry);
    return entry.value;
  }

  async set(key: string, value: string, ttlMs: number): Promise<boolean> {
    this.remove(key);
    const bytes = Buffer.byteLength(key) + Buffer.byteLength(value);
    if (bytes > this.maxBytes || !(ttlMs > 0)) return false;
    while (this.entries.size >= this.maxEntries || this.bytes + bytes > this.maxBytes) this.evictOldest();
    this.entries.set(key, { value, bytes, expiresAt: this.now() + ttlMs });
    this.bytes += bytes;
    return true;
  }

  async delete(key: string): Promise<boolean> {
    return this.remove(key);
  }

  async deletePrefix(prefix: string): Promise<number> {
    let removed = 0;
    for (const key of [...this.entries.keys()]) if (key.startsWith(prefix) && this.remove(key)) removed++;
    return removed;
  }

  async clear(): Promise<void> {
    this.entries.clear();
    this.bytes = 0;
  }

  stats(): CacheStoreStats {
    return {
      entries: this.entries.size,
      bytes: this.bytes,
      evictions: this.evictions,
      expirations: this.expirations,
    };
  }

  private remove(key: string): boolean {
    const entry = this.entries.get(key);
    if (!entry) return false;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
    return true;
  }

  private evictOldest(): void {
    const oldest = this.entries.keys().next();
    if (oldest.done) return;
    const entry = this.entries.get(oldest.value);
    this.entries.delete(oldest.value);
    if (!entry) return;
    this.bytes -= entry.bytes;
    // An entry that had expired anyway is not an eviction: nothing still valid was lost.
    if (entry.expiresAt <= this.now()) this.expirations++;
    else this.evictions++;
  }
}
