import type { Redis } from 'ioredis';
import { optionError } from '../../../foundation/util/option-checks.js';
import type { RoundKeyStore } from './round-key.js';

export interface RedisRoundKeyOptions {
  /** A connected (or connecting) client; never closed here. */
  redis: Redis;
  /** Prefix of the key (`state.redis.prefix`); default `aperture:`. */
  prefix?: string;
}

/**
 * A {@link RoundKeyStore} in Redis: one key (`<prefix>mcp:rounds:key`, base64, no expiry) set with
 * `SET NX`, then read, so replicas starting together all end with the one key set first. A Redis
 * that lost its data gets a replica's proposal again — each proposes the key it already holds, so
 * they agree on the same one.
 */
export function redisRoundKey(options: RedisRoundKeyOptions): RoundKeyStore {
  const { redis } = options;
  if (!redis || typeof redis.set !== 'function')
    throw optionError('redisRoundKey redis', 'must be an ioredis client');
  const key = `${options.prefix ?? 'aperture:'}mcp:rounds:key`;
  return {
    async agree(proposal) {
      await redis.set(key, Buffer.from(proposal).toString('base64'), 'NX');
      const stored = await redis.get(key);
      // Deleted between the two commands (a flush): this replica's proposal stands for now.
      if (stored === null) return Uint8Array.from(proposal);
      return Uint8Array.from(Buffer.from(stored, 'base64'));
    },
  };
}
