import { describe, expect, it } from 'vitest';
import { optionFailure } from '../../../test/support/expect-failure.js';
import { makeTool } from '../../../test/support/test-tools.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import type { RunCall } from '../../foundation/ports/run-middleware.js';
import { type RateLimiterOptions, rateLimiter } from './rate-limiter.js';

function limiterAt(options: Omit<RateLimiterOptions, 'now'>) {
  const clock = { t: 0 };
  return { limiter: rateLimiter({ ...options, now: () => clock.t }), clock };
}

function refusal(run: () => void): GatewayError {
  try {
    run();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected rate_limited');
}

describe('RateLimiter', () => {
  it('lets perMinute calls through, refuses the next with retryAfterMs, and lets one through once it refilled', () => {
    const { limiter, clock } = limiterAt({ rules: [{ perMinute: 3 }] });
    for (let i = 0; i < 3; i++) limiter.check('ns:t', 'alice');
    const error = refusal(() => limiter.check('ns:t', 'alice'));
    expect(error.code).toBe('rate_limited');
    expect(error.retryable).toBe(true);
    expect(error.details).toMatchObject({ retryAfterMs: 20_000, perMinute: 3, burst: 3, rule: 0 });
    clock.t = 19_999;
    expect(refusal(() => limiter.check('ns:t', 'alice')).details?.retryAfterMs).toBe(1);
    clock.t = 20_000;
    limiter.check('ns:t', 'alice');
    expect(limiter.stats().limited).toBe(2);
  });

  it('burst caps what a quiet spell saves up', () => {
    const { limiter, clock } = limiterAt({ rules: [{ perMinute: 60, burst: 2 }] });
    clock.t = 3_600_000;
    limiter.check('ns:t', 'a');
    limiter.check('ns:t', 'a');
    expect(refusal(() => limiter.check('ns:t', 'a')).details?.retryAfterMs).toBe(1000);
  });

  it('keeps one bucket per identity and tool by default', () => {
    const { limiter } = limiterAt({ rules: [{ perMinute: 1 }] });
    limiter.check('ns:a', 'alice');
    limiter.check('ns:b', 'alice');
    limiter.check('ns:a', 'bob');
    expect(() => limiter.check('ns:a', 'alice')).toThrow(/rate limit/i);
  });

  it('`per` merges buckets: per identity across tools, or one for everyone', () => {
    const perIdentity = limiterAt({ rules: [{ perMinute: 2, per: ['identity'] }] }).limiter;
    perIdentity.check('ns:a', 'alice');
    perIdentity.check('ns:b', 'alice');
    expect(() => perIdentity.check('ns:c', 'alice')).toThrow(/rate limit/i);
    perIdentity.check('ns:c', 'bob');

    const global = limiterAt({ rules: [{ perMinute: 1, per: [] }] }).limiter;
    global.check('ns:a', 'alice');
    expect(() => global.check('ns:b', 'bob')).toThrow(/rate limit/i);
  });

  it('applies a rule only to the identities and tools it names (globs allowed)', () => {
    const { limiter } = limiterAt({ rules: [{ tool: 'github:*', identity: 'ci-*', perMinute: 1 }] });
    limiter.check('github:list', 'ci-bot');
    expect(() => limiter.check('github:list', 'ci-bot')).toThrow(/rate limit/i);
    limiter.check('github:list', 'alice');
    limiter.check('github:list', 'alice');
    limiter.check('gitlab:list', 'ci-bot');
    limiter.check('gitlab:list', 'ci-bot');
  });

  it('as a middleware, counts an API key and a JWT subject of the same name apart', async () => {
    const { limiter } = limiterAt({ rules: [{ perMinute: 1 }] });
    const next = async () => ({ content: [] });
    const as = (authMethod?: 'api_key' | 'jwt') =>
      ({
        tool: makeTool('ns:t'),
        args: {},
        ctx: { caller: { identity: 'ka', ...(authMethod ? { authMethod } : {}) } },
      }) as unknown as RunCall;
    await limiter.middleware(as('api_key'), next);
    // Another caller's bucket: the JWT subject "ka" is not the API key "ka", nor the bare caller.
    await limiter.middleware(as('jwt'), next);
    await limiter.middleware(as(), next);
    await expect(limiter.middleware(as('jwt'), next)).rejects.toMatchObject({ code: 'rate_limited' });
  });

  it("matches a rule's identity against the name (either method) or the method-qualified key", () => {
    const byName = limiterAt({ rules: [{ identity: 'ka', perMinute: 1 }] }).limiter;
    byName.check('ns:t', 'apikey:ka');
    expect(() => byName.check('ns:t', 'apikey:ka')).toThrow(/rate limit/i);
    byName.check('ns:t', 'jwt:ka');
    expect(() => byName.check('ns:t', 'jwt:ka')).toThrow(/rate limit/i);
    const jwtOnly = limiterAt({ rules: [{ identity: 'jwt:*', perMinute: 1 }] }).limiter;
    jwtOnly.check('ns:t', 'apikey:ka');
    jwtOnly.check('ns:t', 'apikey:ka');
    jwtOnly.check('ns:t', 'jwt:ka');
    expect(() => jwtOnly.check('ns:t', 'jwt:ka')).toThrow(/rate limit/i);
  });

  it('needs a token from every matching rule; a refusal takes none, and names the longest wait', () => {
    const { limiter } = limiterAt({
      rules: [
        { perMinute: 2, per: [] },
        { tool: 'ns:slow', perMinute: 1 },
      ],
    });
    limiter.check('ns:slow', 'a'); // rule 0: 1 token left; rule 1: none
    const error = refusal(() => limiter.check('ns:slow', 'a'));
    expect(error.details).toMatchObject({ rule: 1, retryAfterMs: 60_000 });
    // Had the refused call taken rule 0's last token, this would be refused too.
    limiter.check('ns:other', 'a');
    expect(refusal(() => limiter.check('ns:other', 'a')).details).toMatchObject({ rule: 0 });
  });

  it('keeps at most maxBuckets, and drops idle refilled buckets as new ones come', () => {
    const { limiter, clock } = limiterAt({ rules: [{ perMinute: 60 }], maxBuckets: 3 });
    for (const identity of ['a', 'b', 'c', 'd', 'e']) limiter.check('ns:t', identity);
    expect(limiter.stats().buckets).toBe(3);
    clock.t = 10_000; // every bucket refilled
    limiter.check('ns:t', 'f');
    expect(limiter.stats().buckets).toBeLessThanOrEqual(2);
  });

  it('refuses rules it cannot honour', () => {
    expect(optionFailure(() => rateLimiter({ rules: [{ perMinute: 0 }] }))).toMatch(/perMinute/);
    expect(optionFailure(() => rateLimiter({ rules: [{ perMinute: 1, burst: 0 }] }))).toMatch(/burst/);
    expect(
      optionFailure(() => rateLimiter({ rules: [{ perMinute: 1, per: ['session' as never] }] })),
    ).toMatch(/per/);
  });

  it('as a middleware, refuses before the tool runs', async () => {
    const { limiter } = limiterAt({ rules: [{ perMinute: 1 }] });
    let runs = 0;
    const next = async () => {
      runs++;
      return { content: [] };
    };
    const call = {
      tool: makeTool('ns:t'),
      args: {},
      ctx: {
        signal: new AbortController().signal,
        callId: 'c',
        caller: { identity: 'a' },
        progress: () => {},
        log: silentLogger,
      },
    };
    await limiter.middleware(call, next);
    await expect(limiter.middleware(call, next)).rejects.toMatchObject({ code: 'rate_limited' });
    expect(runs).toBe(1);
  });
});
