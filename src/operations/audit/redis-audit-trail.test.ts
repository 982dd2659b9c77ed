import { describe, expect, it } from 'vitest';
import { onRedis, useRedisServer } from '../../../test/support/redis-fixture.js';
import { redisServerBin, unlessRedis } from '../../../test/support/redis-server.js';
import type { Logger } from '../../foundation/ports/logger.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import { runAuditTrailContract } from './audit-trail.contract.js';
import { RedisAuditTrail } from './redis-audit-trail.js';

const redis = useRedisServer();

onRedis('AuditTrail contract: RedisAuditTrail (real Redis)', () => {
  runAuditTrailContract(
    'RedisAuditTrail (real Redis)',
    async () => {
      const prefix = redis.prefix();
      const reader = await redis.connect(prefix);
      return {
        // Each trail on a connection of its own, as each replica has.
        open: async () => new RedisAuditTrail({ connection: await redis.connect(prefix) }),
        lines: () => reader.client.lrange(`${prefix}audit`, 0, -1),
      };
    },
    { sharedWriters: true },
  );
});

describe('RedisAuditTrail', () => {
  it.skipIf(!redisServerBin)(
    `verifies the chain against its head, and names a changed line${unlessRedis()}`,
    async () => {
      const prefix = redis.prefix();
      const connection = await redis.connect(prefix);
      const trail = new RedisAuditTrail({ connection });
      for (let i = 1; i <= 4; i++) await trail.record({ kind: 'call', actor: `c${i}` });
      expect(await trail.verify(3)).toMatchObject({ ok: true, lines: 4 });
      // The last line changed: only the head shows it.
      const last = (await connection.client.lindex(`${prefix}audit`, 3)) ?? '';
      await connection.client.lset(`${prefix}audit`, 3, last.replace('"c4"', '"c5"'));
      expect(await trail.verify()).toMatchObject({ ok: false, line: 4 });
      await connection.client.lset(`${prefix}audit`, 3, last);
      const second = (await connection.client.lindex(`${prefix}audit`, 1)) ?? '';
      await connection.client.lset(`${prefix}audit`, 1, second.replace('"c2"', '"x2"'));
      expect(await trail.verify()).toMatchObject({ ok: false, line: 2 });
    },
  );

  it('logs a line it cannot write while Redis is down, without throwing', async () => {
    const errors: object[] = [];
    const log: Logger = { ...silentLogger, error: (obj) => void errors.push(obj), child: () => log };
    const connection = await redis.connect('down:', { url: 'redis://127.0.0.1:1', waitUp: false });
    const trail = new RedisAuditTrail({ connection, log });
    await expect(trail.record({ kind: 'call', actor: 'x' })).resolves.toBeUndefined();
    expect(errors).toHaveLength(1);
  });
});
