import { afterAll, beforeAll } from 'vitest';
import { silentLogger } from '../../src/foundation/logger.js';
import {
  createRedisConnection,
  type RedisConnection,
  type RedisConnectionOptions,
} from '../../src/operations/state/redis-connection.js';
import { type RedisServerHandle, startRedisServer } from './redis-server.js';

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
}

/** Starts a Redis for the calling test file (`beforeAll`) and stops it and every connection after (`afterAll`). */
export function useRedisServer(): RedisFixture {
  let server: RedisServerHandle | null = null;
  const connections: RedisConnection[] = [];
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
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
  };
}
