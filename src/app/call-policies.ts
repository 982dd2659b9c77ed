import type { ApertureConfig } from '../config/config-schema.js';
import type { Logger } from '../foundation/logger.js';
import type { RunMiddleware } from '../foundation/run-middleware.js';
import { type ResultCache, resultCache } from '../operations/cache/result-cache.js';
import { type RateLimiter, rateLimiter } from '../operations/limits/rate-limiter.js';
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
}

/**
 * Builds the `rateLimits`, `cache` and `resilience` sections into middlewares. The order is the
 * point: a rate-limited call never reaches the cache or the tool; a cache hit never retries or
 * touches a breaker; each retry passes the breaker again, so an open circuit stops the retries
 * (its `retryAfterMs` is longer than any retry delay).
 */
export function callPolicies(config: ApertureConfig, log: Logger): CallPolicies {
  const middlewares: RunMiddleware[] = [];
  const limits = config.rateLimits.length > 0 ? rateLimiter({ rules: config.rateLimits }) : undefined;
  if (limits) middlewares.push(limits.middleware);
  const { enabled, ...cacheOptions } = config.cache;
  // A per-user OAuth server answers each user with their own data: its results are never shared.
  const perUser = Object.values(config.servers).some(
    (entry) => entry.kind === 'remote' && entry.oauth?.perUser,
  );
  const partition = perUser ? 'identity' : cacheOptions.partition;
  const cache = enabled
    ? resultCache({ ...cacheOptions, partition, log: log.child({ component: 'cache' }) })
    : undefined;
  if (cache) middlewares.push(cache.middleware);
  const { retries, circuitBreaker } = config.resilience;
  if (retries.maxRetries > 0) middlewares.push(retry(retries));
  const { enabled: breaking, ...breakerOptions } = circuitBreaker;
  const breakers = breaking
    ? circuitBreakers({ ...breakerOptions, log: log.child({ component: 'circuit-breaker' }) })
    : undefined;
  if (breakers) middlewares.push(breakers.middleware);
  return { middlewares, cache, rateLimits: limits, breakers };
}
