import { describe, expect, it } from 'vitest';
import { onRedis, useRedisServer } from '../../../../test/support/redis-fixture.js';
import { redisSessionDirectory } from './redis-session-directory.js';
import { describeSessionDirectoryContract } from './session-directory.contract.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const redis = useRedisServer();

onRedis('SessionDirectory contract: redisSessionDirectory', () => {
  describeSessionDirectoryContract('redisSessionDirectory', (ttlMs) => ({
    directory: redisSessionDirectory({ redis: redis.client(), prefix: redis.prefix(), ttlMs }),
    elapse: sleep,
  }));

  describe('redisSessionDirectory keys', () => {
    it('keeps a session under its prefix, with the TTL as the key expiry', async () => {
      const prefix = redis.prefix();
      const directory = redisSessionDirectory({ redis: redis.client(), prefix, ttlMs: 60_000 });
      await directory.put('abc', {
        owner: 'o',
        endpoint: '/mcp',
        json: false,
        protocolVersion: '2025-06-18',
        clientInfo: { name: 'c', version: '1' },
        capabilities: {},
      });
      const ttl = await redis.client().pttl(`${prefix}mcp:session:abc`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
      const other = redisSessionDirectory({ redis: redis.client(), prefix: redis.prefix(), ttlMs: 60_000 });
      expect(await other.get('abc')).toBeUndefined();
    });
  });
});

describe('redisSessionDirectory options', () => {
  it('refuses something that is not an ioredis client, and a bad TTL', () => {
    expect(() => redisSessionDirectory({ redis: {} as never, ttlMs: 1000 })).toThrow(
      /must be an ioredis client/,
    );
    const fake = { getex: () => {} } as never;
    expect(() => redisSessionDirectory({ redis: fake, ttlMs: 0 })).toThrow(/ttlMs must be an integer/);
  });
});
