import { Catalog } from '../../catalog/catalog.js';
import { ToolOverrides } from '../../catalog/tool-overrides.js';
import { CatalogCacheHints } from '../../surfaces/mcp/cache-hints.js';
import { FlatNaming } from '../../surfaces/mcp/flat-naming.js';
import type { FeatureFactory } from './feature.js';

declare module './feature.js' {
  interface PartTypes {
    catalog: Catalog;
    /** Flat tool names (prefix rules and collisions), shared by every session. */
    naming: FlatNaming;
    /** Caching hints of the 2026-07-28 results that follow the catalog. */
    cacheHints: CatalogCacheHints;
  }
}

/**
 * The catalog (core, always on): tools with their overrides, behind trust's gate; the flat names
 * every session shares. A reload re-applies `overrides` to every source's tools; only the tools
 * whose merged override changed are reported to sessions.
 */
export const catalog: FeatureFactory = (config, parts) => {
  const gate = parts.need('trust')?.gate;
  const made = parts.provide(
    'catalog',
    new Catalog({ overrides: new ToolOverrides(config.overrides), ...(gate ? { gate } : {}) }),
  );
  parts.provide('cacheHints', new CatalogCacheHints(made, { maxTtlMs: config.http.cacheHintMaxTtlMs }));
  const servers = Object.values(config.servers).filter((server) => server.enabled);
  parts.provide(
    'naming',
    new FlatNaming({
      unprefixed: new Set(servers.filter((server) => !server.prefix).map((server) => server.namespace)),
      order: servers.map((server) => server.namespace),
      log: parts.log.child({ component: 'exposure' }),
    }),
  );
  return {
    name: 'catalog',
    reload: {
      overrides: (next) => {
        made.setOverrides(new ToolOverrides(next.config.overrides));
        return undefined;
      },
    },
    readiness: () => ({ tools: made.size }),
  };
};
