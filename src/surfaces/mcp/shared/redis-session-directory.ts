import type { Redis } from 'ioredis';
import { integerAtLeast, optionError } from '../../../foundation/util/option-checks.js';
import type { SessionDirectory, SessionRecord } from './session-directory.js';

export interface RedisSessionDirectoryOptions {
  /** A connected (or connecting) client; the directory never closes it. */
  redis: Redis;
  /** Prefix of every key (`state.redis.prefix`); default `aperture:`. */
  prefix?: string;
  /** How long a record outlives its last `put` or `touch` (`http.sessionIdleMs`). */
  ttlMs: number;
}

/**
 * A {@link SessionDirectory} in Redis: one string key per session (`<prefix>mcp:session:<id>`,
 * the record as JSON) whose expiry is the TTL, so a session nobody uses ends on every replica
 * without a sweep. `touch` is one `GETEX … PX`: the record and the sliding TTL in one round trip.
 */
export function redisSessionDirectory(options: RedisSessionDirectoryOptions): SessionDirectory {
  const { redis } = options;
  if (!redis || typeof redis.getex !== 'function')
    throw optionError('redisSessionDirectory redis', 'must be an ioredis client');
  const ttlMs = integerAtLeast(options.ttlMs, 1, 'redisSessionDirectory ttlMs');
  const prefix = `${options.prefix ?? 'aperture:'}mcp:session:`;
  const parse = (json: string | null) => (json === null ? undefined : (JSON.parse(json) as SessionRecord));
  return {
    async put(id, record) {
      await redis.set(prefix + id, JSON.stringify(record), 'PX', ttlMs);
    },
    async get(id) {
      return parse(await redis.get(prefix + id));
    },
    async touch(id) {
      return parse(await redis.getex(prefix + id, 'PX', ttlMs));
    },
    async delete(id) {
      return (await redis.del(prefix + id)) > 0;
    },
  };
}
