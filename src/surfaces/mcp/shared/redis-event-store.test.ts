import { describe, expect, it } from 'vitest';
import { onRedis, useRedisServer } from '../../../../test/support/redis-fixture.js';
import { describeEventStoreContract } from '../event-store.contract.js';
import { redisEventStore } from './redis-event-store.js';

const note = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 1 } } as const;

const redis = useRedisServer();

onRedis('EventStore contract: redisEventStore', () => {
  describeEventStoreContract('redisEventStore', () =>
    redisEventStore({ redis: redis.client(), prefix: redis.prefix(), ttlMs: 60_000 }),
  );

  describe('redisEventStore', () => {
    it('lets a second store on the same Redis (another replica) replay the first one’s events', async () => {
      const prefix = redis.prefix();
      const a = redisEventStore({ redis: redis.client(), prefix, ttlMs: 60_000 });
      const b = redisEventStore({ redis: redis.client(), prefix, ttlMs: 60_000 });
      const first = await a.storeEvent('s1/_GET_stream', note);
      const second = await a.storeEvent('s1/_GET_stream', { ...note, params: { level: 'info', data: 2 } });
      const sent: [string, unknown][] = [];
      const stream = await b.replayEventsAfter(first, {
        send: async (id, message) => void sent.push([id, message]),
      });
      expect(stream).toBe('s1/_GET_stream');
      expect(sent).toEqual([[second, { ...note, params: { level: 'info', data: 2 } }]]);
    });

    it('keeps at most the bound per stream and expires a stream with its TTL', async () => {
      const prefix = redis.prefix();
      const store = redisEventStore({ redis: redis.client(), prefix, ttlMs: 60_000, maxEventsPerStream: 1 });
      for (let i = 0; i < 300; i++) await store.storeEvent('busy', note);
      // MAXLEN ~ trims whole nodes: far fewer than were stored, never more than a node's worth.
      expect(await redis.client().xlen(`${prefix}mcp:events:busy`)).toBeLessThan(300);
      const ttl = await redis.client().pttl(`${prefix}mcp:events:busy`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
    });

    it('knows no stream for an id it never issued, however it looks', async () => {
      const store = redisEventStore({ redis: redis.client(), prefix: redis.prefix(), ttlMs: 60_000 });
      expect(await store.getStreamIdForEventId('a_1-0')).toBeUndefined();
      expect(await store.getStreamIdForEventId('_1-0')).toBeUndefined();
      expect(await store.getStreamIdForEventId('a_b')).toBeUndefined();
    });
  });
});

describe('redisEventStore options', () => {
  it('refuses something that is not an ioredis client, and bad bounds', () => {
    expect(() => redisEventStore({ redis: {} as never, ttlMs: 1000 })).toThrow(/must be an ioredis client/);
    const fake = { xadd: () => {} } as never;
    expect(() => redisEventStore({ redis: fake, ttlMs: -1 })).toThrow(/ttlMs/);
    expect(() => redisEventStore({ redis: fake, ttlMs: 1, maxEventsPerStream: 0 })).toThrow(
      /maxEventsPerStream/,
    );
  });
});
