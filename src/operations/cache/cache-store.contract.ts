import { describe, expect, it } from 'vitest';
import type { CacheStore } from './cache-store.js';

/** What a contract run asks of a store: its bounds and the clock it must read. */
export interface CacheStoreSetup {
  maxEntries: number;
  maxBytes: number;
  now: () => number;
}

/** Builds an empty store with the given bounds and clock. */
export type CacheStoreFactory = (setup: CacheStoreSetup) => CacheStore | Promise<CacheStore>;

/**
 * The behaviour every {@link CacheStore} must have. Call it from a `*.test.ts` file with a factory
 * returning a fresh, empty store. Keys and values are ASCII, so bytes are characters.
 */
export function runCacheStoreContract(label: string, factory: CacheStoreFactory): void {
  describe(`CacheStore contract: ${label}`, () => {
    /** A store with a hand-driven clock. */
    async function setup(bounds: Partial<Omit<CacheStoreSetup, 'now'>> = {}) {
      const clock = { t: 1_000_000 };
      const store = await factory({
        maxEntries: bounds.maxEntries ?? 100,
        maxBytes: bounds.maxBytes ?? 1_000_000,
        now: () => clock.t,
      });
      return { store, clock };
    }

    it('answers undefined for a key it never had', async () => {
      const { store } = await setup();
      expect(await store.get('missing')).toBeUndefined();
      expect(store.stats().entries).toBe(0);
    });

    it('returns a value exactly as stored, and replaces it on a second set', async () => {
      const { store } = await setup();
      const value = JSON.stringify({ content: [{ type: 'text', text: 'h\u00e9llo \u{1F511} "q" \\' }] });
      expect(await store.set('k', value, 1000)).toBe(true);
      expect(await store.get('k')).toBe(value);
      expect(await store.set('k', 'second', 1000)).toBe(true);
      expect(await store.get('k')).toBe('second');
      expect(store.stats().entries).toBe(1);
    });

    it('serves an entry until its time to live has passed, then forgets it', async () => {
      const { store, clock } = await setup();
      await store.set('k', 'v', 500);
      clock.t += 499;
      expect(await store.get('k')).toBe('v');
      clock.t += 1;
      expect(await store.get('k')).toBeUndefined();
      expect(store.stats().entries).toBe(0);
      expect(store.stats().bytes).toBe(0);
    });

    it('refuses a time to live that is not positive', async () => {
      const { store } = await setup();
      expect(await store.set('k', 'v', 0)).toBe(false);
      expect(await store.get('k')).toBeUndefined();
    });

    it('holds at most maxEntries, evicting the least recently used first', async () => {
      const { store } = await setup({ maxEntries: 3 });
      await store.set('a', '1', 10_000);
      await store.set('b', '2', 10_000);
      await store.set('c', '3', 10_000);
      expect(await store.get('a')).toBe('1'); // a is now the most recently used; b the least
      await store.set('d', '4', 10_000);
      expect(await store.get('b')).toBeUndefined();
      expect(await store.get('a')).toBe('1');
      expect(await store.get('c')).toBe('3');
      expect(await store.get('d')).toBe('4');
      expect(store.stats()).toMatchObject({ entries: 3, evictions: 1 });
    });

    it('holds at most maxBytes (keys plus values), evicting the least recently used first', async () => {
      const { store } = await setup({ maxBytes: 30 });
      await store.set('k1', 'x'.repeat(8), 10_000); // 10 bytes
      await store.set('k2', 'x'.repeat(8), 10_000); // 20
      await store.set('k3', 'x'.repeat(8), 10_000); // 30: full
      expect(store.stats().bytes).toBe(30);
      await store.set('k4', 'x'.repeat(13), 10_000); // 15: k1 and k2 must go
      expect(await store.get('k1')).toBeUndefined();
      expect(await store.get('k2')).toBeUndefined();
      expect(await store.get('k3')).toBe('x'.repeat(8));
      expect(await store.get('k4')).toBe('x'.repeat(13));
      expect(store.stats().bytes).toBe(25);
      expect(store.stats().bytes).toBeLessThanOrEqual(30);
    });

    it('refuses an entry larger than the whole store and keeps the rest', async () => {
      const { store } = await setup({ maxBytes: 30 });
      await store.set('small', 'v', 10_000);
      expect(await store.set('huge', 'x'.repeat(40), 10_000)).toBe(false);
      expect(await store.get('huge')).toBeUndefined();
      expect(await store.get('small')).toBe('v');
    });

    it('deletes one key, and clears everything', async () => {
      const { store } = await setup();
      await store.set('a', '1', 10_000);
      await store.set('b', '2', 10_000);
      expect(await store.delete('a')).toBe(true);
      expect(await store.delete('a')).toBe(false);
      expect(await store.get('a')).toBeUndefined();
      expect(await store.get('b')).toBe('2');
      await store.clear();
      expect(await store.get('b')).toBeUndefined();
      expect(store.stats()).toMatchObject({ entries: 0, bytes: 0 });
    });

    it('deletes the keys with a prefix, and only those', async () => {
      const { store } = await setup();
      await store.set('ns:a\u0000x', '1', 10_000);
      await store.set('ns:a\u0000y', '2', 10_000);
      await store.set('ns:ab\u0000x', '3', 10_000);
      await store.set('other:a\u0000x', '4', 10_000);
      expect(await store.deletePrefix('ns:a\u0000')).toBe(2);
      expect(await store.get('ns:a\u0000x')).toBeUndefined();
      expect(await store.get('ns:ab\u0000x')).toBe('3');
      expect(await store.deletePrefix('ns:')).toBe(1);
      expect(await store.get('other:a\u0000x')).toBe('4');
      expect(store.stats()).toMatchObject({ entries: 1 });
    });

    it('keeps keys apart that differ only slightly', async () => {
      const { store } = await setup();
      await store.set('tool#abc', 'one', 10_000);
      await store.set('tool#abd', 'two', 10_000);
      await store.set('tool#ab', 'three', 10_000);
      expect(await store.get('tool#abc')).toBe('one');
      expect(await store.get('tool#abd')).toBe('two');
      expect(await store.get('tool#ab')).toBe('three');
    });
  });
}
