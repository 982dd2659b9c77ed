import type { RedisConnection } from '../state/redis-connection.js';
import { RedisScript } from '../state/redis-script.js';
import type { BucketRequest, SharedBuckets } from './shared-buckets.js';

/*
 * KEYS: one hash per bucket {tokens, at}. ARGV: capacity and perMinute of each bucket in turn.
 * Time is Redis's own (TIME), so gateways whose clocks differ still count one bucket alike. A
 * bucket expires once it would be full again: a full bucket is the same as none.
 */
const TAKE = new RedisScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local tokens, waits = {}, {}
local blocked = false
for i, key in ipairs(KEYS) do
  local capacity, perMs = tonumber(ARGV[2 * i - 1]), tonumber(ARGV[2 * i]) / 60000
  local state = redis.call('HMGET', key, 'tokens', 'at')
  local held = tonumber(state[1] or capacity)
  local at = tonumber(state[2] or now)
  if now > at then held = math.min(capacity, held + (now - at) * perMs) end
  tokens[i] = held
  if held >= 1 then waits[i] = 0 else waits[i] = math.ceil((1 - held) / perMs); blocked = true end
end
for i, key in ipairs(KEYS) do
  local capacity, perMs = tonumber(ARGV[2 * i - 1]), tonumber(ARGV[2 * i]) / 60000
  local held = tokens[i]
  if not blocked then held = held - 1 end
  redis.call('HSET', key, 'tokens', tostring(held), 'at', tostring(now))
  redis.call('PEXPIRE', key, math.ceil((capacity - held) / perMs) + 1000)
end
return waits
`);

/** {@link SharedBuckets} in Redis: one Lua script per call takes the tokens of all its buckets at once. */
export class RedisSharedBuckets implements SharedBuckets {
  private readonly prefix: string;

  constructor(private readonly connection: RedisConnection) {
    this.prefix = `${connection.prefix}rate:`;
  }

  async take(buckets: readonly BucketRequest[]): Promise<number[]> {
    if (buckets.length === 0) return [];
    const keys = buckets.map((bucket) => this.prefix + bucket.key);
    const args = buckets.flatMap((bucket) => [bucket.capacity, bucket.perMinute]);
    const reply = (await TAKE.run(this.connection.client, keys, args)) as unknown[];
    return reply.map(Number);
  }
}
