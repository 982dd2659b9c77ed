import type { ApertureConfig } from '../config/config-schema.js';
import type { Logger } from '../foundation/ports/logger.js';
import type { RunMiddleware } from '../foundation/ports/run-middleware.js';
import type { CacheStore } from '../operations/cache/cache-store.js';
import { CACHE_STORE_DEFAULTS } from '../operations/cache/cache-store.js';
import { type ResultCache, resultCache } from '../operations/cache/result-cache.js';
import { toolCacheSettings } from '../operations/cache/tool-cache-settings.js';
import { type RateLimiter, rateLimiter } from '../operations/limits/rate-limiter.js';
import type { SharedBuckets } from '../operations/limits/shared-buckets.js';
import { type CircuitBreakers, circuitBreakers } from '../operations/resilience/circuit-breakers.js';
import { retry } from '../operations/resilience/retry.js';

/** The call policies a config asks for, as pipeline middlewares, with handles to inspect them. */
export interface CallPolicies {
  /** In pipeline order: rate limits, cache, retries, circuit breaking. Only those switched on. */
  readonly middlewares: readonly RunMiddleware[];
  /** Hit and miss counters (`stats()`), when the cache is on. */
  readonly cache: ResultCache | undefined;
  readonly rateLimits: RateLimiter | undefined;
  /** Each source's circuit state (`snapshot()`), when breaking is on. */
  readonly breakers: CircuitBreakers | undefined;
  /** The cache keeps results per caller because a server keeps tokens per caller (`oauth.perUser`). */
  readonly perCaller: boolean;
  /** What the policies keep in Redis with `state.driver: redis` (a reload builds on the same). */
  readonly shared: SharedPolicyBacking | undefined;
}

/** Where call policies keep their state when several gateways share it (`state.driver: redis`). */
export interface SharedPolicyBacking {
  /** The result cache's store, with the configured bounds (for all gateways together). */
  cacheStore(bounds: { maxEntries: number; maxBytes: number }): CacheStore;
  /** Rate-limit buckets every gateway takes from. */
  buckets: SharedBuckets;
}

/**
 * Builds the `rateLimits`, `cache` and `resilience` sections into middlewares. The order is the
 * point: a rate-limited call never reaches the cache or the tool; a cache hit never retries or
 * touches a breaker; each retry passes the breaker again, so an open circuit stops the retries
 * (its `retryAfterMs` is longer than any retry delay).
 */
export function callPolicies(
  config: ApertureConfig,
  log: Logger,
  keep: KeptPolicies = {},
  shared?: SharedPolicyBacking,
): CallPolicies {
  const middlewares: RunMiddleware[] = [];
  const limits =
    'rateLimits' in keep
      ? keep.rateLimits
      : config.rateLimits.length > 0
        ? rateLimiter({
            rules: config.rateLimits,
            ...(shared ? { shared: shared.buckets, log: log.child({ component: 'rate-limits' }) } : {}),
          })
        : undefined;
  if (limits) middlewares.push(limits.middleware);
  const { enabled, tools: cacheTools, ...cacheOptions } = config.cache;
  // A per-user OAuth server answers each user with their own data: its results are never shared.
  const perCaller = hasPerUserServer(config);
  const partition = perCaller ? 'identity' : cacheOptions.partition;
  const cache =
    'cache' in keep
      ? keep.cache
      : enabled
        ? resultCache({
            ...cacheOptions,
            partition,
            toolSettings: toolCacheSettings(cacheTools),
            ...(shared ? { store: shared.cacheStore(cacheBounds(cacheOptions)) } : {}),
            log: log.child({ component: 'cache' }),
          })
        : undefined;
  if (cache) middlewares.push(cache.middleware);
  const { retries, circuitBreaker } = config.resilience;
  if (retries.maxRetries > 0) middlewares.push(retry(retries));
  const { enabled: breaking, ...breakerOptions } = circuitBreaker;
  const breakers =
    'breakers' in keep
      ? keep.breakers
      : breaking
        ? circuitBreakers({ ...breakerOptions, log: log.child({ component: 'circuit-breaker' }) })
        : undefined;
  if (breakers) middlewares.push(breakers.middleware);
  return { middlewares, cache, rateLimits: limits, breakers, perCaller, shared };
}

/** The bounds of `cache.*`, with the in-memory store's defaults where the config sets none. */
function cacheBounds(options: { maxEntries?: number | undefined; maxBytes?: number | undefined }) {
  return {
    maxEntries: options.maxEntries ?? CACHE_STORE_DEFAULTS.maxEntries,
    maxBytes: options.maxBytes ?? CACHE_STORE_DEFAULTS.maxBytes,
  };
}

/** Running policies a rebuild keeps as they are (with their state: buckets, cached results, circuits). */
export type KeptPolicies = {
  -readonly [K in 'cache' | 'rateLimits' | 'breakers']?: CallPolicies[K];
};

/**
 * The policies of a reloaded config: the parts whose section did not change are kept with their
 * state (a cache keeps its entries when only `rateLimits` changed); the others are built anew.
 */
export function reloadedPolicies(
  previous: CallPolicies,
  config: ApertureConfig,
  changed: readonly string[],
  log: Logger,
): CallPolicies {
  const keep: KeptPolicies = {};
  if (!changed.includes('rateLimits')) keep.rateLimits = previous.rateLimits;
  // A cache shared by every caller must not survive a server turning per-user, nor the reverse.
  if (!changed.includes('cache') && previous.perCaller === hasPerUserServer(config))
    keep.cache = previous.cache;
  if (!changed.includes('resilience')) keep.breakers = previous.breakers;
  return callPolicies(config, log, keep, previous.shared);
}

/**
 * One middleware running whatever `current()` answers, in order: the pipeline's chain is fixed at
 * start, and this is the slot a reload swaps the call policies in.
 */
export function swappableMiddlewares(current: () => readonly RunMiddleware[]): RunMiddleware {
  return (call, next) => {
    const middlewares = current();
    const step = (index: number): ReturnType<RunMiddleware> => {
      const middleware = middlewares[index];
      return middleware ? middleware(call, () => step(index + 1)) : next();
    };
    return step(0);
  };
}

/** Whether a remote server keeps tokens per caller (`oauth.perUser`): then no result is shared. */
export function hasPerUserServer(config: ApertureConfig): boolean {
  return Object.values(config.servers).some((entry) => entry.kind === 'remote' && entry.oauth?.perUser);
}
