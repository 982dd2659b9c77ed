import type { RedisConnection } from '../state/redis-connection.js';
import { RedisScript } from '../state/redis-script.js';
import { type CacheStore, type CacheStoreStats, cacheStoreBounds } from './cache-store.js';

export interface RedisCacheStoreOptions {
  connection: RedisConnection;
  /** Most entries held at once, by all gateways together. Default 1000. */
  maxEntries?: number;
  /** Most bytes (keys plus values) held at once, by all gateways together. Default 64 MiB. */
  maxBytes?: number;
  /** The clock, in milliseconds (tests pass a fake one). Default `Date.now`. */
  now?: () => number;
}

/*
 * The store in Redis, under KEYS: 1 a hash key → value, 2 a hash key → "expiresAt bytes", 3 a
 * sorted set of keys by last use (a sequence number, not a time: ties cannot happen), 4 a hash of
 * counters (bytes, evictions, expirations, seq). Every script ends by returning the figures, so
 * `stats()` answers from the latest reply without a round trip of its own.
 */
const COMMON = `
local function stats()
  local s = redis.call('HMGET', KEYS[4], 'bytes', 'evictions', 'expirations')
  return { redis.call('ZCARD', KEYS[3]), tonumber(s[1] or '0'), tonumber(s[2] or '0'), tonumber(s[3] or '0') }
end
local function remove(k)
  local meta = redis.call('HGET', KEYS[2], k)
  if not meta then return false end
  local sep = string.find(meta, ' ', 1, true)
  redis.call('HDEL', KEYS[1], k)
  redis.call('HDEL', KEYS[2], k)
  redis.call('ZREM', KEYS[3], k)
  redis.call('HINCRBY', KEYS[4], 'bytes', -tonumber(string.sub(meta, sep + 1)))
  return true
end
local function touch(k)
  redis.call('ZADD', KEYS[3], redis.call('HINCRBY', KEYS[4], 'seq', 1), k)
end
`;

/** ARGV: key, now. Returns {found, value, ...stats}. */
const GET = new RedisScript(`${COMMON}
local meta = redis.call('HGET', KEYS[2], ARGV[1])
if not meta then return { 0, '', unpack(stats()) } end
local expires = tonumber(string.sub(meta, 1, string.find(meta, ' ', 1, true) - 1))
if expires <= tonumber(ARGV[2]) then
  remove(ARGV[1])
  redis.call('HINCRBY', KEYS[4], 'expirations', 1)
  return { 0, '', unpack(stats()) }
end
touch(ARGV[1])
return { 1, redis.call('HGET', KEYS[1], ARGV[1]), unpack(stats()) }
`);

/** ARGV: key, value, expiresAt, ttlMs, maxEntries, maxBytes. Returns {stored, ...stats}. */
const SET = new RedisScript(`${COMMON}
local key, value = ARGV[1], ARGV[2]
remove(key)
local bytes = #key + #value
local maxEntries, maxBytes = tonumber(ARGV[5]), tonumber(ARGV[6])
if bytes > maxBytes or tonumber(ARGV[4]) <= 0 then return { 0, unpack(stats()) } end
while true do
  local held = tonumber(redis.call('HGET', KEYS[4], 'bytes') or '0')
  if redis.call('ZCARD', KEYS[3]) < maxEntries and held + bytes <= maxBytes then break end
  local oldest = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
  if not oldest then break end
  remove(oldest)
  redis.call('HINCRBY', KEYS[4], 'evictions', 1)
end
redis.call('HSET', KEYS[1], key, value)
redis.call('HSET', KEYS[2], key, ARGV[3] .. ' ' .. bytes)
redis.call('HINCRBY', KEYS[4], 'bytes', bytes)
touch(key)
return { 1, unpack(stats()) }
`);

/** ARGV: key. Returns {removed, ...stats}. */
const DELETE = new RedisScript(`${COMMON}
return { remove(ARGV[1]) and 1 or 0, unpack(stats()) }
`);

/**
 * ARGV: prefix. Returns {removed, ...stats}. Walks the keys held (at most `maxEntries`, 1000 by
 * default), so one script, atomic like the rest, drops them for every gateway on this Redis.
 */
const DELETE_PREFIX = new RedisScript(`${COMMON}
local prefix, removed = ARGV[1], 0
for _, k in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
  if string.sub(k, 1, #prefix) == prefix and remove(k) then removed = removed + 1 end
end
return { removed, unpack(stats()) }
`);

const CLEAR = new RedisScript(`${COMMON}
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
redis.call('HSET', KEYS[4], 'bytes', 0)
return { 1, unpack(stats()) }
`);

/**
 * A {@link CacheStore} in Redis, shared by every gateway on it: a result one gateway computed is
 * a hit on all. The same bounds and least-recently-used eviction as the in-memory store, kept
 * exact by doing each operation in one Lua script (atomic, whatever the other gateways do).
 * Expiry reads the caller's clock, as the in-memory store does, so gateways whose clocks agree
 * (NTP) agree on what expired. A failing Redis rejects; the result cache counts that as a miss
 * and runs the tool, so a Redis outage costs speed, never answers.
 */
export class RedisCacheStore implements CacheStore {
  private readonly keys: string[];
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private readonly now: () => number;
  private figures: CacheStoreStats = { entries: 0, bytes: 0, evictions: 0, expirations: 0 };

  constructor(private readonly options: RedisCacheStoreOptions) {
    const base = `${options.connection.prefix}cache:`;
    this.keys = [`${base}values`, `${base}meta`, `${base}lru`, `${base}counters`];
    ({ maxEntries: this.maxEntries, maxBytes: this.maxBytes } = cacheStoreBounds(options, 'RedisCacheStore'));
    this.now = options.now ?? Date.now;
  }

  async get(key: string): Promise<string | undefined> {
    const reply = await this.run(GET, [key, this.now()]);
    return reply[0] === 1 ? String(reply[1]) : undefined;
  }

  async set(key: string, value: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    const reply = await this.run(SET, [key, value, now + ttlMs, ttlMs, this.maxEntries, this.maxBytes]);
    return reply[0] === 1;
  }

  async delete(key: string): Promise<boolean> {
    return (await this.run(DELETE, [key]))[0] === 1;
  }

  async deletePrefix(prefix: string): Promise<number> {
    return Number((await this.run(DELETE_PREFIX, [prefix]))[0]);
  }

  async clear(): Promise<void> {
    await this.run(CLEAR, []);
  }

  /** The figures of the latest reply from Redis (they cover every gateway's entries). */
  stats(): CacheStoreStats {
    return { ...this.figures };
  }

  private async run(script: RedisScript, args: readonly (string | number)[]): Promise<unknown[]> {
    const reply = (await script.run(this.options.connection.client, this.keys, args)) as unknown[];
    const tail = reply.slice(-4).map(Number);
    this.figures = {
      entries: tail[0] ?? 0,
      bytes: tail[1] ?? 0,
      evictions: tail[2] ?? 0,
      expirations: tail[3] ?? 0,
    };
    return reply;
  }
}
