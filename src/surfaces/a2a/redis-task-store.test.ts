import { onRedis, useRedisServer } from '../../../test/support/redis-fixture.js';
import { RedisTaskStore } from './redis-task-store.js';
import { runTaskStoreContract } from './task-store.contract.js';

const redis = useRedisServer();
let stores = 0;

onRedis('TaskStore contract: RedisTaskStore (real Redis)', () => {
  runTaskStoreContract('RedisTaskStore (real Redis)', async (maxTasks) => {
    const connection = await redis.connect(`tasks${++stores}:`);
    return new RedisTaskStore(connection, maxTasks);
  });
});
