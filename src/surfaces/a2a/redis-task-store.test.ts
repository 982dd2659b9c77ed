import { afterAll, beforeAll } from 'vitest';
import {
  type RedisServerHandle,
  redisServerBin,
  startRedisServer,
} from '../../../test/support/redis-server.js';
import { silentLogger } from '../../foundation/logger.js';
import { createRedisConnection, type RedisConnection } from '../../operations/state/redis-connection.js';
import { RedisTaskStore } from './redis-task-store.js';
import { runTaskStoreContract } from './task-store.contract.js';

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

if (redisServerBin) {
  runTaskStoreContract('RedisTaskStore (real Redis)', async (maxTasks) => {
    if (!redis) throw new Error('no redis');
    const connection = createRedisConnection({ url: redis.url, prefix: `tasks${++stores}:` }, silentLogger);
    connections.push(connection);
    await connection.whenUp(5000);
    return new RedisTaskStore(connection, maxTasks);
  });
}
