import { describe, expect, it } from 'vitest';
import { optionFailure } from '../../../test/support/expect-failure.js';
import { runCacheStoreContract } from './cache-store.contract.js';
import { InMemoryCacheStore } from './in-memory-cache-store.js';

runCacheStoreContract('InMemoryCacheStore', (setup) => new InMemoryCacheStore(setup));

describe('InMemoryCacheStore', () => {
  it('counts an expired entry pushed out by a new one as an expiration, not an eviction', async () => {
    let t = 0;
    const store = new InMemoryCacheStore({ maxEntries: 1, now: () => t });
    await store.set('old', 'v', 10);
    t = 20;
    await store.set('new', 'v', 10);
    expect(store.stats()).toMatchObject({ entries: 1, evictions: 0, expirations: 1 });
  });

  it('counts bytes as UTF-8', async () => {
    const store = new InMemoryCacheStore();
    await store.set('k', 'é', 1000);
    expect(store.stats().bytes).toBe(3);
  });

  it('refuses bounds that are not positive integers', () => {
    expect(optionFailure(() => new InMemoryCacheStore({ maxEntries: 0 }))).toMatch(/maxEntries/);
    expect(optionFailure(() => new InMemoryCacheStore({ maxBytes: 1.5 }))).toMatch(/maxBytes/);
  });
});
