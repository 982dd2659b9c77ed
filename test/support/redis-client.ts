import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { type RedisServerHandle, startRedisServer } from './redis-server.js';

/**
 * One real redis-server and one ioredis client for a test file (started in `beforeAll`, stopped in
 * `afterAll`); `prefix()` gives each test keys of its own. Use only where redis-server exists
 * (`redisServerBin`), otherwise skip by name.
 */
export function useRedis(): { client(): Redis; url(): string; prefix(): string } {
  let server: RedisServerHandle | null = null;
  let client: Redis | undefined;
  beforeAll(async () => {
    server = await startRedisServer();
    if (!server) throw new Error('redis-server is not installed');
    client = new Redis(server.url, { lazyConnect: false, maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    client?.disconnect();
    await server?.[Symbol.asyncDispose]();
  });
  return {
    client: () => {
      if (!client) throw new Error('redis is not started');
      return client;
    },
    url: () => {
      if (!server) throw new Error('redis is not started');
      return server.url;
    },
    prefix: () => `test-${randomUUID()}:`,
  };
}
