import { describe, expect, it } from 'vitest';
import { onRedis, useRedisServer } from '../../../../test/support/redis-fixture.js';
import { redisRoundKey } from './redis-round-key.js';
import { describeRoundKeyContract } from './round-key.contract.js';

const redis = useRedisServer();

onRedis('RoundKeyStore contract: redisRoundKey', () => {
  describeRoundKeyContract('redisRoundKey', () => {
    const prefix = redis.prefix();
    return [
      redisRoundKey({ redis: redis.client(), prefix }),
      redisRoundKey({ redis: redis.client(), prefix }),
    ];
  });
});

describe('redisRoundKey options', () => {
  it('refuses something that is not an ioredis client', () => {
    expect(() => redisRoundKey({ redis: {} as never })).toThrow(/must be an ioredis client/);
  });
});
