import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { silentLogger } from '../../src/foundation/ports/logger.js';
import {
  createRedisConnection,
  type RedisConnection,
  type RedisConnectionOptions,
} from '../../src/operations/state/redis-connection.js';
import { type RedisServerHandle, redisServerBin, startRedisServer, unlessRedis } from './redis-server.js';

/** A test file's real Redis and the connections it opened on it (each as another gateway would). */
export interface RedisFixture {
  /** The server, once `beforeAll` started it; null when `redis-server` is not installed. */
  readonly server: RedisServerHandle | null;
  /**
   * A connection of its own under `prefix`, closed after the file's tests; by default to the
   * fixture's server, with a 1 s command timeout and a short backoff, and up before it resolves
   * (`waitUp: false` for a Redis that is meant to be unreachable).
   */
  connect(
    prefix: string,
    options?: Partial<RedisConnectionOptions> & { waitUp?: boolean },
  ): Promise<RedisConnection>;
  /** One plain ioredis client on the server, for parts that take a client rather than a connection. */
  client(): Redis;
  /** A key prefix no other test uses. */
  prefix(): string;
}

/** Starts a Redis for the calling test file (`beforeAll`) and stops it and every connection after (`afterAll`). */
export function useRedisServer(): RedisFixture {
  let server: RedisServerHandle | null = null;
  let plain: Redis | undefined;
  const connections: RedisConnection[] = [];
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    plain?.disconnect();
    await Promise.allSettled(connections.map((c) => c.close()));
    await server?.[Symbol.asyncDispose]();
  });
  return {
    get server() {
      return server;
    },
    async connect(prefix, { waitUp = true, ...options } = {}) {
      const url = options.url ?? server?.url;
      if (!url) throw new Error('no redis');
      const connection = createRedisConnection(
        { commandTimeoutMs: 1000, backoff: { minMs: 50, maxMs: 200 }, ...options, url, prefix },
        silentLogger,
      );
      connections.push(connection);
      if (waitUp) await connection.whenUp(5000);
      return connection;
    },
    client() {
      if (!server) throw new Error('redis is not started');
      plain ??= new Redis(server.url, { maxRetriesPerRequest: 1 });
      return plain;
    },
    prefix: () => `test-${randomUUID()}:`,
  };
}

/**
 * Declares `name`'s tests, which need a real Redis: with `redis-server` installed they run,
 * without it one test of that name is reported skipped, saying why (never silently absent).
 */
export function onRedis(name: string, declare: () => void): void {
  if (redisServerBin) declare();
  else describe.skip(`${name}${unlessRedis()}`, () => it('runs against a real redis-server', () => {}));
}
