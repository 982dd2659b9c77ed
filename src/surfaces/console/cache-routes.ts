import type { Hono } from 'hono';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { CacheInvalidation } from './admin-contract.js';
import { adminRouter } from './admin-router.js';

/** What the route needs of the gateway's result cache. */
export interface CacheAdmin {
  /**
   * The cache in force (a reload may replace it), or undefined when `cache.enabled` is off.
   * `invalidate` resolves the entries dropped, -1 when all were.
   */
  current(): { invalidate(which: { tool?: string; namespace?: string }): Promise<number> } | undefined;
  /** True when the store is shared (Redis). */
  shared: boolean;
}

/** Options of {@link cacheRoutes}. */
export interface CacheRoutesOptions {
  cache: CacheAdmin;
  /** True when auth is configured: then only an admin identity may use the route. */
  authEnabled: boolean;
  maxBodyBytes: number;
}

/**
 * `POST /api/admin/cache/invalidate` (`adminCacheInvalidate`): drops the cached results of one
 * tool, of a namespace, or all. The entries live in the store every gateway shares when the state
 * is in Redis, so one call reaches every replica. Admin-only with auth on: it changes what every
 * caller is served next (fresh answers, slower ones).
 */
export function cacheRoutes(options: CacheRoutesOptions): Hono {
  const { app, serve } = adminRouter({
    authEnabled: options.authEnabled,
    maxBodyBytes: options.maxBodyBytes,
  });
  serve({
    adminCacheInvalidate: async ({ body }) => {
      const { tool, namespace } = await body();
      const cache = options.cache.current();
      if (!cache) throw new GatewayError('not_found', 'The result cache is off (cache.enabled: false)');
      const which = tool !== undefined ? { tool } : namespace !== undefined ? { namespace } : {};
      const dropped = await cache.invalidate(which);
      const answer: CacheInvalidation = {
        scope: tool !== undefined ? 'tool' : namespace !== undefined ? 'namespace' : 'all',
        shared: options.cache.shared,
      };
      if (dropped >= 0) answer.dropped = dropped;
      return answer;
    },
  });
  return app;
}
