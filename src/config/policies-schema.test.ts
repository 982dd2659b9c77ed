import { describe, expect, it } from 'vitest';
import { failureOf } from '../../test/support/expect-failure.js';
import { configSchema } from './config-schema.js';
import { parseConfigValue } from './load-config.js';

const parse = (raw: Record<string, unknown>) => configSchema.parse(raw);
const issues = (raw: Record<string, unknown>) => {
  const result = configSchema.safeParse(raw);
  if (result.success) throw new Error('expected the config to be refused');
  return result.error.issues.map((issue) => [issue.path.join('.'), issue.message]);
};

describe('cache section', () => {
  it('is off without the section, on as soon as it is written', () => {
    expect(parse({}).cache.enabled).toBe(false);
    expect(parse({ cache: {} }).cache).toEqual({
      enabled: true,
      ttlMs: 60_000,
      maxEntries: 1000,
      maxBytes: 67_108_864,
      maxEntryBytes: 1_048_576,
      partition: 'scope',
    });
    expect(parse({ cache: { ttlMs: '5000' } }).cache).toMatchObject({ enabled: true, ttlMs: 5000 });
    expect(parse({ cache: { enabled: 'false', ttlMs: 10 } }).cache.enabled).toBe(false);
  });

  it('names a bad key or value', () => {
    expect(issues({ cache: { ttl: 5 } })).toEqual([['cache', 'Unrecognized key: "ttl"']]);
    expect(issues({ cache: { maxEntries: 0 } })[0]?.[0]).toBe('cache.maxEntries');
    expect(issues({ cache: { partition: 'everyone' } })[0]?.[0]).toBe('cache.partition');
  });

  it('takes a per-tool cache flag in overrides', () => {
    expect(parse({ overrides: { 'ns:tool': { cache: 'false' } } }).overrides['ns:tool']?.cache).toBe(false);
    expect(
      failureOf(() => parseConfigValue({ overrides: { ns: { cache: 'sometimes' } } })).details?.path,
    ).toBe('overrides.ns.cache');
  });
});

describe('rateLimits section', () => {
  it('takes rules with globs, burst and per', () => {
    const rules = [
      { tool: 'github:*', perMinute: 60 },
      { identity: 'ci-*', perMinute: '10', burst: 2, per: ['identity'] },
    ];
    expect(parse({ rateLimits: rules }).rateLimits).toEqual([
      { tool: 'github:*', perMinute: 60 },
      { identity: 'ci-*', perMinute: 10, burst: 2, per: ['identity'] },
    ]);
  });

  it('names what is wrong in a rule', () => {
    expect(issues({ rateLimits: [{ tool: 'a:*' }] })[0]?.[0]).toBe('rateLimits.0.perMinute');
    expect(issues({ rateLimits: [{ perMinute: 0 }] })[0]?.[0]).toBe('rateLimits.0.perMinute');
    expect(issues({ rateLimits: [{ perMinute: 1, per: ['session'] }] })[0]?.[0]).toBe('rateLimits.0.per.0');
    expect(issues({ rateLimits: [{ perMinute: 1, windowMs: 5 }] })).toEqual([
      ['rateLimits.0', 'Unrecognized key: "windowMs"'],
    ]);
  });
});

describe('resilience section', () => {
  it('defaults to two retries and a breaker at five failures, thirty seconds', () => {
    expect(parse({}).resilience).toEqual({
      retries: { maxRetries: 2, baseDelayMs: 100, maxDelayMs: 2000 },
      circuitBreaker: { enabled: true, failureThreshold: 5, cooldownMs: 30_000 },
    });
  });

  it('fills defaults inside a partial section and refuses unknown keys', () => {
    expect(parse({ resilience: { retries: { maxRetries: 0 } } }).resilience.retries).toEqual({
      maxRetries: 0,
      baseDelayMs: 100,
      maxDelayMs: 2000,
    });
    expect(issues({ resilience: { retries: { attempts: 3 } } })[0]?.[0]).toBe('resilience.retries');
    expect(issues({ resilience: { retries: { maxRetries: 11 } } })[0]?.[0]).toBe(
      'resilience.retries.maxRetries',
    );
  });
});
