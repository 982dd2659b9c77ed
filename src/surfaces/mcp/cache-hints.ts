import { createHash } from 'node:crypto';
import type { CacheHint, Tool as McpTool } from '@modelcontextprotocol/server';
import type { Catalog } from '../../catalog/catalog.js';
import type { CallerContext } from '../../foundation/ports/tool-backend.js';
import { integerAtLeast } from '../../foundation/util/option-checks.js';

/** The `_meta` key of a `tools/list` result naming the version of the list the caller sees. */
export const CATALOG_VERSION_META_KEY = 'aperture/catalogVersion';

export interface CatalogCacheHintsOptions {
  /** The longest `ttlMs` ever given (0: never cache). */
  maxTtlMs: number;
  /** The clock (tests move it). */
  now?: () => number;
}

/**
 * Caching hints of the 2026-07-28 revision for the results that follow the catalog (`tools/list`,
 * `server/discover`). A catalog that just changed may well change again (servers still connecting,
 * a hot reload in progress), one that has held for a while likely holds: the TTL is half of how
 * long the current catalog version has held, bounded by `maxTtlMs` — 0 right after a change, so a
 * client never keeps a list the gateway already replaced. (A client listening on
 * `subscriptions/listen` hears of a change at once anyway.) A result is `public` only when it is
 * the same for every caller: no authentication and no toolset confining or narrowing the caller.
 *
 * The version stamped on a `tools/list` result is a digest of the very list the caller sees, so a
 * client can compare it with what it holds, across gateway restarts too.
 */
export class CatalogCacheHints {
  private readonly maxTtlMs: number;
  private readonly now: () => number;
  private version: number;
  private changedAt: number;
  private readonly digests = new WeakMap<readonly McpTool[], string>();

  constructor(
    private readonly catalog: Catalog,
    options: CatalogCacheHintsOptions,
  ) {
    this.maxTtlMs = integerAtLeast(options.maxTtlMs, 0, 'maxTtlMs');
    this.now = options.now ?? Date.now;
    this.version = catalog.version;
    this.changedAt = this.now();
  }

  /** The hint for a result that follows the catalog, served to `caller`. */
  hint(caller: CallerContext): Required<CacheHint> {
    // The catalog's version moves at once on every change (its listeners hear in debounced
    // batches): checking it here dates the change no later than the first result after it.
    if (this.catalog.version !== this.version) {
      this.version = this.catalog.version;
      this.changedAt = this.now();
    }
    const stableMs = Math.max(0, this.now() - this.changedAt);
    return {
      ttlMs: Math.min(this.maxTtlMs, Math.floor(stableMs / 2)),
      cacheScope: isSameForEveryone(caller) ? 'public' : 'private',
    };
  }

  /**
   * The hint of a list merged from downstream servers' lists (`prompts/list`, `resources/list`,
   * `resources/templates/list`) served to `caller`: `mergeCacheHints` of the sources' hints and
   * of the gateway's own for this caller (which servers it sees follows the catalog and its scope).
   */
  mergedHint(caller: CallerContext, sources: readonly (CacheHint | undefined)[]): Required<CacheHint> {
    return mergeCacheHints([this.hint(caller), ...sources]);
  }

  /** The version of a tool list: a digest of what it lists. */
  versionOf(tools: readonly McpTool[]): string {
    let digest = this.digests.get(tools);
    if (digest === undefined) {
      digest = createHash('sha256').update(JSON.stringify(tools)).digest('hex').slice(0, 16);
      this.digests.set(tools, digest);
    }
    return digest;
  }
}

/**
 * The caching hint of a result merged from several sources: the smallest `ttlMs` of them, and
 * `private` when any is. A source without a hint promised nothing, and the revision's defaults
 * for a missing field apply to it (`ttlMs: 0`, stale at once; `cacheScope: private`). No sources:
 * nothing to keep (`ttlMs: 0`, `private`).
 */
export function mergeCacheHints(sources: readonly (CacheHint | undefined)[]): Required<CacheHint> {
  if (sources.length === 0) return { ttlMs: 0, cacheScope: 'private' };
  let ttlMs = Number.POSITIVE_INFINITY;
  let shared = true;
  for (const source of sources) {
    const ttl = source?.ttlMs;
    ttlMs = Math.min(ttlMs, typeof ttl === 'number' && Number.isFinite(ttl) && ttl > 0 ? Math.floor(ttl) : 0);
    if (source?.cacheScope !== 'public') shared = false;
  }
  return { ttlMs, cacheScope: shared ? 'public' : 'private' };
}

/** Whether every caller gets the same results: no identity proven, no toolset in play. */
function isSameForEveryone(caller: CallerContext): boolean {
  return caller.authMethod === undefined && caller.toolsets === undefined && caller.toolset === undefined;
}
