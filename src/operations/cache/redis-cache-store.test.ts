import { describe, expect, it } from 'vitest';
import { onRedis, useRedisServer } from '../../../test/support/redis-fixture.js';
import { redisServerBin, unlessRedis } from '../../../test/support/redis-server.js';
import { runCacheStoreContract } from './cache-store.contract.js';
import { RedisCacheStore } from './redis-cache-store.js';

const redis = useRedisServer();
const connect = (prefix: string) => redis.connect(prefix);
let stores = 0;

onRedis('CacheStore contract: RedisCacheStore (real Redis)', () => {
  runCacheStoreContract(
    'RedisCacheStore (real Redis)',
    async (setup) => new RedisCacheStore({ connection: await connect(`cache${++stores}:`), ...setup }),
  );
});

describe('RedisCacheStore across gateways', () => {
  it.skipIf(!redisServerBin)(
    `a value stored by one gateway is a hit on another${unlessRedis()}`,
    async () => {
      const a = new RedisCacheStore({ connection: await connect('shared:') });
      const b = new RedisCacheStore({ connection: await connect('shared:') });
      await a.set('tool#k', '{"x":1}', 60_000);
      expect(await b.get('tool#k')).toBe('{"x":1}');
      expect(b.stats().entries).toBe(1);
    },
  );

  it.skipIf(!redisServerBin)(
    `a tool's entries dropped through one gateway are gone for every other${unlessRedis()}`,
    async () => {
      const a = new RedisCacheStore({ connection: await connect('shared-drop:') });
      const b = new RedisCacheStore({ connection: await connect('shared-drop:') });
      await a.set('ns:t\u0000k1', '1', 60_000);
      await a.set('ns:t\u0000k2', '2', 60_000);
      await a.set('ns:u\u0000k1', '3', 60_000);
      expect(await b.deletePrefix('ns:t\u0000')).toBe(2);
      expect(await a.get('ns:t\u0000k1')).toBeUndefined();
      expect(await a.get('ns:u\u0000k1')).toBe('3');
    },
  );

  it('rejects at once when Redis is down', async () => {
    const connection = await redis.connect('down:', {
      url: 'redis://127.0.0.1:1',
      backoff: { minMs: 50, maxMs: 100 },
      waitUp: false,
    });
    const store = new RedisCacheStore({ connection });
    await expect(store.get('k')).rejects.toThrow();
    await expect(store.set('k', 'v', 1000)).rejects.toThrow();
  });
});
