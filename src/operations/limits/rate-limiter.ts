import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { Logger } from '../../foundation/ports/logger.js';
import type { RunMiddleware } from '../../foundation/ports/run-middleware.js';
import { callerKey } from '../../foundation/ports/tool-backend.js';
import { globMatcher } from '../../foundation/schema/glob-matcher.js';
import { integerAtLeast, oneOf, positiveNumber } from '../../foundation/util/option-checks.js';
import type { BucketRequest, SharedBuckets } from './shared-buckets.js';
import { TokenBucket } from './token-bucket.js';

/** What a rule counts separately: each identity, each tool, both (default), or neither (one bucket). */
export type RateLimitDimension = 'identity' | 'tool';

/** One `rateLimits` entry. */
export interface RateLimitRule {
  /** The identities it applies to: a name or a `*` glob. Default every identity. */
  identity?: string | undefined;
  /** The tools it applies to: a tool id or a `*` glob (`github:*`). Default every tool. */
  tool?: string | undefined;
  /** Calls a minute, refilled continuously. */
  perMinute: number;
  /** Calls let through at once after a quiet spell. Default `perMinute`. */
  burst?: number | undefined;
  /** Which callers and tools get buckets of their own. Default `['identity', 'tool']`. */
  per?: readonly RateLimitDimension[] | undefined;
}

export interface RateLimiterOptions {
  rules: readonly RateLimitRule[];
  /** Most buckets kept; least recently used ones go first. Default 10000. */
  maxBuckets?: number;
  /** The clock in milliseconds. Default `Date.now`. */
  now?: () => number;
  /**
   * Buckets shared with other gateways (Redis), so a limit holds for all of them together. While
   * they cannot be reached, this gateway's own buckets count instead (logged once per outage).
   */
  shared?: SharedBuckets;
  /** Where the fallback to local buckets is told. */
  log?: Logger;
}

interface CompiledRule {
  index: number;
  perMinute: number;
  burst: number;
  byIdentity: boolean;
  byTool: boolean;
  matchesIdentity: (identity: string) => boolean;
  matchesTool: (toolId: string) => boolean;
}

/**
 * Rate limits as token buckets, one per (rule, identity, tool) by default. A call must find a
 * token in the bucket of every rule that matches it, or it fails with `rate_limited` and
 * `details.retryAfterMs` (the wait until every such bucket has one again); a refused call takes no
 * token from any bucket. Memory is bounded: an idle bucket that has refilled holds nothing worth
 * keeping and is dropped when new buckets come in, and past `maxBuckets` the least recently used
 * bucket goes even if not full (which can only let its caller through sooner, never later).
 */
export class RateLimiter {
  readonly middleware: RunMiddleware;
  private readonly rules: readonly CompiledRule[];
  private readonly buckets = new Map<string, TokenBucket>();
  private readonly maxBuckets: number;
  private readonly now: () => number;
  private limited = 0;

  constructor(options: RateLimiterOptions) {
    this.rules = options.rules.map(compileRule);
    this.maxBuckets = integerAtLeast(options.maxBuckets ?? 10_000, 1, 'rate limit maxBuckets');
    this.now = options.now ?? Date.now;
    this.log = options.log;
    this.shared = options.shared;
    this.middleware = async (call, next) => {
      // Buckets per caller key: an API key and a JWT subject of the same name count apart.
      const caller = callerKey(call.ctx.caller);
      if (this.shared) await this.acquire(call.tool.id, caller);
      else this.check(call.tool.id, caller);
      return next();
    };
  }

  private readonly shared: SharedBuckets | undefined;

  /** Whether the shared buckets failed last time (the fallback is logged once per outage). */
  private sharedDown = false;

  /**
   * {@link check}, on the shared buckets when there are:  a token from each bucket of every matching rule, taken
   * atomically for all gateways, or `rate_limited`. Falls back to the local buckets when the
   * shared ones cannot be reached: a limit per gateway for a while beats refusing every call or
   * letting every call through.
   */
  async acquire(toolId: string, identity: string): Promise<void> {
    const shared = this.shared;
    if (!shared) return this.check(toolId, identity);
    const rules = this.rules.filter((rule) => rule.matchesTool(toolId) && rule.matchesIdentity(identity));
    if (rules.length === 0) return;
    const requests: BucketRequest[] = rules.map((rule) => ({
      // The rule's figures are part of its key: a reload that changes them starts a new bucket.
      key: JSON.stringify([
        rule.index,
        rule.perMinute,
        rule.burst,
        rule.byIdentity ? identity : '',
        rule.byTool ? toolId : '',
      ]),
      capacity: rule.burst,
      perMinute: rule.perMinute,
    }));
    let waits: number[];
    try {
      waits = await shared.take(requests);
    } catch (error) {
      if (!this.sharedDown) {
        this.sharedDown = true;
        this.log?.warn(
          { reason: error instanceof Error ? error.message : String(error) },
          "shared rate limits unreachable; counting with this gateway's own buckets until they are back",
        );
      }
      this.check(toolId, identity);
      return;
    }
    if (this.sharedDown) {
      this.sharedDown = false;
      this.log?.info({}, 'shared rate limits are back');
    }
    let blocked: { rule: CompiledRule; waitMs: number } | undefined;
    rules.forEach((rule, i) => {
      const waitMs = waits[i] ?? 0;
      if (waitMs > 0 && (!blocked || waitMs > blocked.waitMs)) blocked = { rule, waitMs };
    });
    if (blocked) {
      this.limited++;
      throw limitError(blocked.rule, blocked.waitMs, toolId);
    }
  }

  private readonly log: Logger | undefined;

  /** Takes a token for one call of `toolId` by `identity`, or throws `rate_limited`. */
  check(toolId: string, identity: string): void {
    const now = this.now();
    const size = this.buckets.size;
    let blocked: { rule: CompiledRule; waitMs: number } | undefined;
    const granted: TokenBucket[] = [];
    for (const rule of this.rules) {
      if (!rule.matchesTool(toolId) || !rule.matchesIdentity(identity)) continue;
      const bucket = this.bucketFor(rule, identity, toolId, now);
      const waitMs = bucket.msUntilToken(now);
      if (waitMs === 0) granted.push(bucket);
      else if (!blocked || waitMs > blocked.waitMs) blocked = { rule, waitMs };
    }
    if (!blocked) for (const bucket of granted) bucket.take(now);
    // Only once the tokens are taken: the buckets of this call are now the most recently used.
    if (this.buckets.size > size) this.makeRoom(now);
    if (blocked) {
      this.limited++;
      throw limitError(blocked.rule, blocked.waitMs, toolId);
    }
  }

  /** Buckets held now, and calls refused so far. */
  stats(): { buckets: number; limited: number } {
    return { buckets: this.buckets.size, limited: this.limited };
  }

  private bucketFor(rule: CompiledRule, identity: string, toolId: string, now: number): TokenBucket {
    const key = `${rule.index}\u0000${rule.byIdentity ? identity : ''}\u0000${rule.byTool ? toolId : ''}`;
    const existing = this.buckets.get(key);
    if (existing) {
      // Re-inserting keeps the Map's order least recently used first.
      this.buckets.delete(key);
      this.buckets.set(key, existing);
      return existing;
    }
    const bucket = new TokenBucket(rule.burst, rule.perMinute, now);
    this.buckets.set(key, bucket);
    return bucket;
  }

  /**
   * After new buckets were added: drops the oldest buckets while they are full (a full bucket is
   * the same as a new one; at most a few per call, so the cost stays constant), and the least
   * recently used ones while the table is over its bound.
   */
  private makeRoom(now: number): void {
    let checked = 0;
    for (const [key, bucket] of this.buckets) {
      const overBound = this.buckets.size > this.maxBuckets;
      if (!overBound && (checked >= 2 || !bucket.isFull(now))) break;
      checked++;
      this.buckets.delete(key);
    }
  }
}

/** Rate limiting middleware with its bucket table (`rateLimiter(options).middleware`). */
export function rateLimiter(options: RateLimiterOptions): RateLimiter {
  return new RateLimiter(options);
}

function compileRule(rule: RateLimitRule, index: number): CompiledRule {
  const label = `rateLimits[${index}]`;
  const perMinute = positiveNumber(rule.perMinute, `${label}.perMinute`);
  const per = rule.per ?? ['identity', 'tool'];
  for (const dimension of per) oneOf(dimension, ['identity', 'tool'], `${label}.per[]`);
  return {
    index,
    perMinute,
    burst: integerAtLeast(rule.burst ?? Math.max(1, Math.floor(rule.perMinute)), 1, `${label}.burst`),
    byIdentity: per.includes('identity'),
    byTool: per.includes('tool'),
    matchesIdentity: identityMatcher(rule.identity ?? '*'),
    matchesTool: globMatcher(rule.tool ?? '*'),
  };
}

function limitError(rule: CompiledRule, waitMs: number, toolId: string): GatewayError {
  const burst = rule.burst === rule.perMinute ? '' : `, burst ${rule.burst}`;
  return new GatewayError(
    'rate_limited',
    `Rate limit reached for ${toolId} (${rule.perMinute} call${rule.perMinute === 1 ? '' : 's'} a minute${burst}); retry in ${Math.ceil(waitMs / 1000)} s`,
    { details: { retryAfterMs: waitMs, perMinute: rule.perMinute, burst: rule.burst, rule: rule.index } },
  );
}

/**
 * A rule's `identity` glob against a caller key (`apikey:ka`, `jwt:ka`, `local`): it matches the
 * key itself (`jwt:*` means every JWT caller) or the name without its method (`ka` means both).
 */
function identityMatcher(glob: string): (key: string) => boolean {
  const matches = globMatcher(glob);
  return (key) => matches(key) || matches(key.replace(/^(apikey|jwt):/, ''));
}
