import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type RedisServerHandle,
  redisServerBin,
  startRedisServer,
  unlessRedis,
} from '../../../test/support/redis-server.js';
import { silentLogger } from '../../foundation/logger.js';
import { createRedisConnection, type RedisConnection } from '../state/redis-connection.js';
import { runCacheStoreContract } from './cache-store.contract.js';
import { RedisCacheStore } from './redis-cache-store.js';

let redis: RedisServerHandle | null = null;
const connections: RedisConnection[] = [];
let stores = 0;

beforeAll(async () => {
  redis = await startRedisServer();
});

afterAll(async () => {
  await Promise.allSettled(connections.map((c) => c.close()));
  await redis?.[Symbol.asyncDispose]();
});

async function connect(prefix: string): Promise<RedisConnection> {
  if (!redis) throw new Error('no redis');
  const connection = createRedisConnection({ url: redis.url, prefix, commandTimeoutMs: 1000 }, silentLogger);
  connections.push(connection);
  await connection.whenUp(5000);
  return connection;
}

if (redisServerBin) {
  runCacheStoreContract(
    'RedisCacheStore (real Redis)',
    async (setup) => new RedisCacheStore({ connection: await connect(`cache${++stores}:`), ...setup }),
  );
}

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

  it('rejects at once when Redis is down', async () => {
    const connection = createRedisConnection(
      { url: 'redis://127.0.0.1:1', prefix: 'down:', backoff: { minMs: 50, maxMs: 100 } },
      silentLogger,
    );
    connections.push(connection);
    const store = new RedisCacheStore({ connection });
    await expect(store.get('k')).rejects.toThrow();
    await expect(store.set('k', 'v', 1000)).rejects.toThrow();
  });
});
