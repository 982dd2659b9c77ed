import { describe, expect, it } from 'vitest';
import { onRedis, useRedisServer } from '../../../../test/support/redis-fixture.js';
import { silentLogger } from '../../../foundation/ports/logger.js';
import { redisSessionRelay } from './redis-session-relay.js';
import { describeSessionRelayContract } from './session-relay.contract.js';

const log = silentLogger;

const redis = useRedisServer();

onRedis('SessionRelay contract: redisSessionRelay', () => {
  describeSessionRelayContract('redisSessionRelay', () => {
    const prefix = redis.prefix();
    const end = () => redisSessionRelay({ redis: redis.client(), prefix, log });
    return [end(), end(), end()];
  });
  describeSessionRelayContract('redisSessionRelay on a shared subscriber', () => {
    const prefix = redis.prefix();
    const subscriber = redis.client().duplicate();
    const end = () => redisSessionRelay({ redis: redis.client(), subscriber, prefix, log });
    const ends = [end(), end(), end()] as const;
    const last = ends[2];
    // The shared connection is the test's to close, after the relays let go of it.
    const close = last.close.bind(last);
    last.close = async () => {
      await close();
      subscriber.disconnect();
    };
    return [...ends];
  });
});

describe('redisSessionRelay options', () => {
  it('refuses something that is not an ioredis client, and a replica name unfit for a channel', () => {
    expect(() => redisSessionRelay({ redis: {} as never, log })).toThrow(/must be an ioredis client/);
    const fake = { duplicate: () => {} } as never;
    expect(() => redisSessionRelay({ redis: fake, replica: 'a b*', log })).toThrow(/replica must be/);
  });
});
