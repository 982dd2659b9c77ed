import { describe, expect, it } from 'vitest';
import type { Catalog } from '../../catalog/catalog.js';
import { CatalogCacheHints } from './cache-hints.js';

function setup(maxTtlMs = 60_000) {
  const catalog = { version: 1 };
  let now = 1_000_000;
  const hints = new CatalogCacheHints(catalog as unknown as Catalog, { maxTtlMs, now: () => now });
  return {
    catalog,
    hints,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

const anonymous = { identity: 'anonymous' };

describe('CatalogCacheHints', () => {
  it('grows the TTL with how long the catalog has held, up to the maximum', () => {
    const { hints, advance } = setup();
    expect(hints.hint(anonymous).ttlMs).toBe(0);
    advance(10_000);
    expect(hints.hint(anonymous).ttlMs).toBe(5_000);
    advance(1_000_000);
    expect(hints.hint(anonymous).ttlMs).toBe(60_000);
  });

  it('drops to 0 as soon as the catalog changes', () => {
    const { catalog, hints, advance } = setup();
    advance(100_000);
    expect(hints.hint(anonymous).ttlMs).toBe(50_000);
    catalog.version = 2;
    expect(hints.hint(anonymous).ttlMs).toBe(0);
    advance(4_000);
    expect(hints.hint(anonymous).ttlMs).toBe(2_000);
  });

  it('never caches with a maximum of 0', () => {
    const { hints, advance } = setup(0);
    advance(100_000);
    expect(hints.hint(anonymous).ttlMs).toBe(0);
  });

  it('is public only for results that are the same for every caller', () => {
    const { hints } = setup();
    expect(hints.hint(anonymous).cacheScope).toBe('public');
    expect(hints.hint({ identity: 'ci', authMethod: 'api_key' }).cacheScope).toBe('private');
    expect(hints.hint({ identity: 'anonymous', toolsets: ['ops'] }).cacheScope).toBe('private');
    expect(hints.hint({ identity: 'anonymous', toolset: 'ops' }).cacheScope).toBe('private');
  });

  it('versions a tool list by what it lists', () => {
    const { hints } = setup();
    const tools = [{ name: 'a', inputSchema: { type: 'object' as const } }];
    const same = [{ name: 'a', inputSchema: { type: 'object' as const } }];
    const other = [{ name: 'b', inputSchema: { type: 'object' as const } }];
    expect(hints.versionOf(tools)).toMatch(/^[0-9a-f]{16}$/);
    expect(hints.versionOf(same)).toBe(hints.versionOf(tools));
    expect(hints.versionOf(other)).not.toBe(hints.versionOf(tools));
  });

  it('refuses a negative maximum', () => {
    expect(() => setup(-1)).toThrow(/maxTtlMs/);
  });
});
