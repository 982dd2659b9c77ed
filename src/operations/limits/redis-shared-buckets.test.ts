import { describe, expect, it } from 'vitest';
import { failure } from '../../../test/support/expect-failure.js';
import { useRedisServer } from '../../../test/support/redis-fixture.js';
import { redisServerBin, unlessRedis } from '../../../test/support/redis-server.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { Logger } from '../../foundation/ports/logger.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import { RateLimiter } from './rate-limiter.js';
import { RedisSharedBuckets } from './redis-shared-buckets.js';

const fixture = useRedisServer();
const connect = (prefix: string, url?: string) =>
  fixture.connect(prefix, { backoff: { minMs: 50, maxMs: 100 }, waitUp: false, ...(url ? { url } : {}) });

const rules = [{ perMinute: 5 }];

describe('rate limits shared in Redis', () => {
  it.skipIf(!redisServerBin)(
    `5 a minute hold for three gateways together: the 6th call is rate_limited${unlessRedis()}`,
    async () => {
      const limiters = await Promise.all(
        [0, 1, 2].map(async () => {
          const connection = await connect('rl1:');
          await connection.whenUp(5000);
          return new RateLimiter({ rules, shared: new RedisSharedBuckets(connection) });
        }),
      );
      for (let i = 0; i < 5; i++) await limiters[i % 3]!.acquire('a:t', 'u');
      const error = await failure(limiters[2]!.acquire('a:t', 'u'));
      expect(error).toBeInstanceOf(GatewayError);
      expect((error as GatewayError).code).toBe('rate_limited');
      expect((error as GatewayError).details?.retryAfterMs).toBeGreaterThan(0);
      // Another identity has buckets of its own.
      await limiters[0]!.acquire('a:t', 'other');
    },
  );

  it('falls back to local buckets when Redis cannot be reached, and says so once', async () => {
    const warnings: string[] = [];
    const log: Logger = { ...silentLogger, warn: (_o, msg) => warnings.push(msg ?? '') };
    const connection = await connect('rl2:', 'redis://127.0.0.1:1');
    const shared = new RedisSharedBuckets(connection);
    const limiter = new RateLimiter({ rules: [{ perMinute: 2 }], shared, log });
    await limiter.acquire('a:t', 'u');
    await limiter.acquire('a:t', 'u');
    const error = await failure(limiter.acquire('a:t', 'u'));
    expect((error as GatewayError).code).toBe('rate_limited');
    expect(warnings).toEqual([expect.stringContaining("counting with this gateway's own buckets")]);
  });
});
