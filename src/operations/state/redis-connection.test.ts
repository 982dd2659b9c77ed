import { describe, expect, it } from 'vitest';
import { redisServerBin, startRedisServer, unlessRedis } from '../../../test/support/redis-server.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { Logger } from '../../foundation/ports/logger.js';
import { createRedisConnection, type RedisHealth } from './redis-connection.js';

function silentLog(): Logger {
  return recordingLog().log;
}

function recordingLog() {
  const lines: { level: string; msg: string | undefined }[] = [];
  const log: Logger = {
    debug: (_o, msg) => lines.push({ level: 'debug', msg }),
    info: (_o, msg) => lines.push({ level: 'info', msg }),
    warn: (_o, msg) => lines.push({ level: 'warn', msg }),
    error: (_o, msg) => lines.push({ level: 'error', msg }),
    child: () => log,
  };
  return { log, lines };
}

async function until(predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('createRedisConnection', () => {
  it('refuses a URL that is not redis:// or rediss://', () => {
    expect(() => createRedisConnection({ url: 'http://x', prefix: 'a:' }, recordingLog().log)).toThrow(
      GatewayError,
    );
  });

  it.skipIf(!redisServerBin)(
    `is up against a real Redis, fails fast while it is down, logs once per change, and comes back${unlessRedis()}`,
    async () => {
      await using redis = await startRedisServer();
      if (!redis) return;
      const { log, lines } = recordingLog();
      const connection = createRedisConnection(
        { url: redis.url, prefix: 't:', commandTimeoutMs: 500, backoff: { minMs: 50, maxMs: 200 } },
        log,
      );
      try {
        await connection.whenUp(5000);
        const changes: RedisHealth['state'][] = [];
        connection.health.onChange((h) => changes.push(h.state));
        expect(await connection.client.ping()).toBe('PONG');
        await redis.stop();
        await until(() => connection.health.current().state === 'down');
        // The refused reconnection names the cause better than the closed connection did.
        await until(() => /ECONNREFUSED/.test(connection.health.current().reason ?? ''));
        // No offline queue: a command while Redis is down rejects at once instead of waiting.
        await expect(connection.client.get('k')).rejects.toThrow();
        // Reconnection attempts do not log again.
        await new Promise((r) => setTimeout(r, 400));
        await redis.start();
        await until(() => connection.health.current().state === 'up');
        expect(await connection.client.ping()).toBe('PONG');
        expect(changes).toEqual(['down', 'up']);
        expect(lines.filter((l) => l.level === 'warn').map((l) => l.msg)).toEqual([
          'Redis is unreachable; serving from memory until it is back',
        ]);
        expect(lines.filter((l) => l.msg === 'Redis is back')).toHaveLength(1);
      } finally {
        await connection.close();
      }
    },
  );

  it.skipIf(!redisServerBin)(
    `bounds every command by commandTimeoutMs when Redis accepts but does not answer${unlessRedis()}`,
    async () => {
      await using redis = await startRedisServer();
      if (!redis) return;
      const connection = createRedisConnection(
        { url: redis.url, prefix: 't:', commandTimeoutMs: 200 },
        silentLog(),
      );
      const other = createRedisConnection({ url: redis.url, prefix: 't:' }, silentLog());
      try {
        await Promise.all([connection.whenUp(5000), other.whenUp(5000)]);
        // Every client's commands wait for 3 s (CLIENT PAUSE answers at once itself).
        await other.client.call('CLIENT', 'PAUSE', '3000', 'ALL');
        const outcome = await connection.client.get('k').then(
          () => 'answered',
          (error: Error) => error.message,
        );
        expect(outcome).toMatch(/timed out/i);
        // The periodic PING finds it too: health says so, with the reason, until Redis answers again.
        await until(() => connection.health.current().state === 'down');
        expect(connection.health.current().reason).toMatch(/does not answer/);
        await until(() => connection.health.current().state === 'up', 10_000);
      } finally {
        await Promise.all([connection.close(), other.close()]);
      }
    },
  );

  it('reports down, with a reason, when nothing listens; whenUp rejects after its timeout', async () => {
    const connection = createRedisConnection(
      { url: 'redis://127.0.0.1:1', prefix: 't:', backoff: { minMs: 50, maxMs: 100 } },
      recordingLog().log,
    );
    try {
      await expect(connection.whenUp(300)).rejects.toThrow(/Redis is not reachable/);
      await until(() => connection.health.current().state === 'down');
      expect(connection.health.current().reason).toMatch(/ECONNREFUSED/);
      await expect(connection.client.get('k')).rejects.toThrow();
    } finally {
      await connection.close();
    }
  });
});
