import { z } from 'zod';
import { isRecord } from '../foundation/util/is-record.js';
import { CACHE_STORE_DEFAULTS } from '../operations/cache/cache-store.js';
import { RESULT_CACHE_DEFAULTS } from '../operations/cache/result-cache.js';
import { CIRCUIT_BREAKER_DEFAULTS } from '../operations/resilience/circuit-breakers.js';
import { RETRY_DEFAULTS } from '../operations/resilience/retry.js';
import { bool, int, nonEmptyString } from './schema-primitives.js';

/*
 * The call-policy sections of the config: `cache` (result cache), `rateLimits` and `resilience`
 * (retries, circuit breakers), built into pipeline middlewares by `app/call-policies.ts`. Strict
 * like the rest of the schema; numbers and booleans also accept their string spelling (values may
 * come from `${env:…}`).
 */

export const cacheSection = z
  .preprocess(
    (value) => (isRecord(value) && !Object.hasOwn(value, 'enabled') ? { ...value, enabled: true } : value),
    z.strictObject({
      enabled: bool().describe('Cache results; writing the section turns it on unless this says false.'),
      ttlMs: int(1)
        .default(RESULT_CACHE_DEFAULTS.ttlMs)
        .describe('How long a result is served from the cache.'),
      maxEntries: int(1)
        .default(CACHE_STORE_DEFAULTS.maxEntries)
        .describe('Results kept at most; the least recently used go first.'),
      maxBytes: int(1)
        .default(CACHE_STORE_DEFAULTS.maxBytes)
        .describe('Bound of the whole cache: UTF-8 bytes of keys and result JSON.'),
      maxEntryBytes: int(1)
        .default(RESULT_CACHE_DEFAULTS.maxEntryBytes)
        .describe('Larger results are not cached, so one big answer cannot flush the rest.'),
      partition: z
        .enum(['scope', 'identity'])
        .default('scope')
        .describe(
          'Who shares cached results: callers of the same scope (toolsets), or only the same identity.',
        ),
      tools: z
        .record(
          nonEmptyString(),
          z.strictObject({
            enabled: bool()
              .optional()
              .describe(
                "Cache the matching tools' results (true) or not (false), over the annotations' verdict.",
              ),
            ttlMs: int(1)
              .optional()
              .describe("How long the matching tools' results are served from the cache."),
          }),
        )
        .optional()
        .describe(
          "Per-tool settings by tool id or `*` glob (`github:*`): `enabled` over the annotations' verdict, `ttlMs` over the default. Every matching entry applies, later over earlier; an override's own `cache` beats them all.",
        ),
    }),
  )
  .prefault({ enabled: false })
  .describe(
    "`cache`: the result cache. Writing the section turns it on unless it says `enabled: false`; without it nothing is cached. Read-only and idempotent tools are cached; an override's `cache: true|false` decides for one tool.",
  );

const rateLimitSchema = z
  .strictObject({
    identity: nonEmptyString().optional().describe('An identity name or `*` glob; default every identity.'),
    tool: nonEmptyString().optional().describe('A tool id or `*` glob (`github:*`); default every tool.'),
    perMinute: int(1).describe('Calls per minute each bucket allows (the rate its tokens come back at).'),
    burst: int(1).optional().describe('Calls let through at once after a quiet spell; default `perMinute`.'),
    per: z
      .array(z.enum(['identity', 'tool']))
      .optional()
      .describe(
        'What gets a bucket of its own: `[identity, tool]` (default), `[identity]`, `[tool]`, `[]` (one shared).',
      ),
  })
  .describe(
    'One `rateLimits` entry: a token bucket per identity and tool (by default) among those it matches.',
  );

export const rateLimitsSection = z
  .array(rateLimitSchema)
  .default([])
  .describe('`rateLimits`: every rule matching a call must have a token for it.');

export const resilienceSection = z
  .strictObject({
    retries: z
      .strictObject({
        maxRetries: int(0, 10)
          .default(RETRY_DEFAULTS.maxRetries)
          .describe('Tries after the first; 0 turns retries off.'),
        baseDelayMs: int(0)
          .default(RETRY_DEFAULTS.baseDelayMs)
          .describe('Wait before the first retry, doubled for each further one (half of it jittered).'),
        maxDelayMs: int(0)
          .default(RETRY_DEFAULTS.maxDelayMs)
          .describe('The longest wait; a failure asking for more (`retryAfterMs`) is not retried.'),
      })
      .prefault({})
      .describe(
        'Retries of idempotent tools (read-only or `idempotentHint`) after a retryable failure, with exponential backoff.',
      ),
    circuitBreaker: z
      .strictObject({
        enabled: bool().default(true).describe('Open circuits on repeated failures.'),
        failureThreshold: int(1)
          .default(CIRCUIT_BREAKER_DEFAULTS.failureThreshold)
          .describe(
            'Consecutive failures (unavailable, timeout, internal) of one source that open its circuit.',
          ),
        cooldownMs: int(1)
          .default(CIRCUIT_BREAKER_DEFAULTS.cooldownMs)
          .describe('How long an open circuit fails calls fast before one probe call may test the source.'),
      })
      .prefault({})
      .describe(
        'A circuit per source: after repeated failures its calls fail fast (`backend_unavailable`) until a probe succeeds.',
      ),
  })
  .prefault({})
  .describe(
    '`resilience`: retries (read-only or idempotent tools only, retryable failures only) and circuit breakers (one per source).',
  );
