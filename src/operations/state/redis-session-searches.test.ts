import { describe, expect, it } from 'vitest';
import { onRedis, useRedisServer } from '../../../test/support/redis-fixture.js';
import { describeSessionSearchesContract } from '../../foundation/ports/session-searches.contract.js';
import { RedisSessionSearches } from './redis-session-searches.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const redis = useRedisServer();

onRedis('SessionSearches contract: RedisSessionSearches', () => {
  describeSessionSearchesContract('RedisSessionSearches', (ttlMs) => ({
    searches: new RedisSessionSearches({ redis: redis.client(), prefix: redis.prefix(), ttlMs }),
    elapse: sleep,
  }));

  describe('RedisSessionSearches keys', () => {
    it('keeps a session’s searches under its prefix, expiring with the TTL, and skips damaged items', async () => {
      const prefix = redis.prefix();
      const searches = new RedisSessionSearches({ redis: redis.client(), prefix, ttlMs: 60_000 });
      await searches.add('abc', { query: 'q', ids: ['t'], at: 1 }, 5);
      const key = `${prefix}search:recent:abc`;
      const ttl = await redis.client().pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
      await redis.client().rpush(key, 'not json', '{"q":1}');
      expect(await searches.list('abc')).toEqual([{ query: 'q', ids: ['t'], at: 1 }]);
    });
  });
});

describe('RedisSessionSearches options', () => {
  it('refuses something that is not an ioredis client, and a bad TTL', () => {
    expect(() => new RedisSessionSearches({ redis: {} as never, ttlMs: 1000 })).toThrow(
      /must be an ioredis client/,
    );
    expect(() => new RedisSessionSearches({ redis: { multi: () => undefined } as never, ttlMs: 0 })).toThrow(
      /ttlMs/,
    );
  });
});
