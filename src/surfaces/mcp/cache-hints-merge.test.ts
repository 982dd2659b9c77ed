import { describe, expect, it } from 'vitest';
import type { Catalog } from '../../catalog/catalog.js';
import { CatalogCacheHints, mergeCacheHints } from './cache-hints.js';

describe('mergeCacheHints', () => {
  it('takes the smallest TTL of the sources, public only when every source is', () => {
    expect(
      mergeCacheHints([
        { ttlMs: 60_000, cacheScope: 'public' },
        { ttlMs: 5_000, cacheScope: 'public' },
      ]),
    ).toEqual({ ttlMs: 5_000, cacheScope: 'public' });
    expect(
      mergeCacheHints([
        { ttlMs: 60_000, cacheScope: 'public' },
        { ttlMs: 90_000, cacheScope: 'private' },
      ]),
    ).toEqual({ ttlMs: 60_000, cacheScope: 'private' });
  });

  it('reads a missing field as the revision does: stale at once, private', () => {
    // A 2025-era server sends no hint: the merged list may not be kept.
    expect(mergeCacheHints([{ ttlMs: 60_000, cacheScope: 'public' }, undefined])).toEqual({
      ttlMs: 0,
      cacheScope: 'private',
    });
    expect(mergeCacheHints([{ ttlMs: 60_000, cacheScope: 'public' }, { ttlMs: 30_000 }])).toEqual({
      ttlMs: 30_000,
      cacheScope: 'private',
    });
    expect(mergeCacheHints([{ cacheScope: 'public' }])).toEqual({ ttlMs: 0, cacheScope: 'public' });
  });

  it('keeps nothing from no sources, and no nonsense TTL', () => {
    expect(mergeCacheHints([])).toEqual({ ttlMs: 0, cacheScope: 'private' });
    expect(mergeCacheHints([{ ttlMs: -5, cacheScope: 'public' }])).toEqual({
      ttlMs: 0,
      cacheScope: 'public',
    });
    expect(mergeCacheHints([{ ttlMs: Number.NaN, cacheScope: 'public' }]).ttlMs).toBe(0);
    expect(mergeCacheHints([{ ttlMs: 1_500.7, cacheScope: 'public' }]).ttlMs).toBe(1_500);
  });
});

describe('CatalogCacheHints.mergedHint', () => {
  const setup = () => {
    let now = 1_000_000;
    const hints = new CatalogCacheHints({ version: 1 } as unknown as Catalog, {
      maxTtlMs: 60_000,
      now: () => now,
    });
    const advance = (ms: number) => {
      now += ms;
    };
    return { hints, advance };
  };

  it('bounds the sources by the gateway’s own hint for the caller', () => {
    const { hints, advance } = setup();
    const sources = [{ ttlMs: 40_000, cacheScope: 'public' as const }];
    // The catalog just changed: nothing is kept, whatever the sources say.
    expect(hints.mergedHint({ identity: 'anonymous' }, sources)).toEqual({ ttlMs: 0, cacheScope: 'public' });
    advance(1_000_000);
    expect(hints.mergedHint({ identity: 'anonymous' }, sources)).toEqual({
      ttlMs: 40_000,
      cacheScope: 'public',
    });
    // A confined or authenticated caller's list is its own.
    expect(hints.mergedHint({ identity: 'ka', authMethod: 'api_key' }, sources)).toEqual({
      ttlMs: 40_000,
      cacheScope: 'private',
    });
    expect(
      hints.mergedHint({ identity: 'anonymous' }, [...sources, { ttlMs: 1_000, cacheScope: 'private' }]),
    ).toEqual({
      ttlMs: 1_000,
      cacheScope: 'private',
    });
  });
});
