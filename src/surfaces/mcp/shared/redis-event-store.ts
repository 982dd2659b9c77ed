import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type { Redis } from 'ioredis';
import { integerAtLeast, optionError } from '../../../foundation/util/option-checks.js';
import type { EventStore } from '../event-store.js';

export interface RedisEventStoreOptions {
  /** A connected (or connecting) client; the store never closes it. */
  redis: Redis;
  /** Prefix of every key (`state.redis.prefix`); default `aperture:`. */
  prefix?: string;
  /** A stream's events are dropped this long after its last one (the session idle TTL). */
  ttlMs: number;
  /** Events kept per stream at most (older ones are trimmed); default 1000. */
  maxEventsPerStream?: number;
}

/**
 * An {@link EventStore} in Redis, so a client resumes a stream (`Last-Event-ID`) on whichever
 * replica its reconnect lands. One Redis stream per MCP stream (`<prefix>mcp:events:<streamId>`),
 * trimmed to a bound and expiring with its session; an event id is `<streamId>_<entry id>`, so a
 * replay finds its stream without an index (entry ids hold no `_`).
 */
export function redisEventStore(options: RedisEventStoreOptions): EventStore {
  const { redis } = options;
  if (!redis || typeof redis.xadd !== 'function')
    throw optionError('redisEventStore redis', 'must be an ioredis client');
  const ttlMs = integerAtLeast(options.ttlMs, 1, 'redisEventStore ttlMs');
  const maxEvents = integerAtLeast(
    options.maxEventsPerStream ?? 1000,
    1,
    'redisEventStore maxEventsPerStream',
  );
  const prefix = `${options.prefix ?? 'aperture:'}mcp:events:`;

  const parse = (eventId: string): { streamId: string; entry: string } | undefined => {
    const at = eventId.lastIndexOf('_');
    if (at <= 0) return undefined;
    const entry = eventId.slice(at + 1);
    return /^\d+-\d+$/.test(entry) ? { streamId: eventId.slice(0, at), entry } : undefined;
  };
  /** The stream of an event id that is still stored; undefined otherwise (trimmed, expired, forged). */
  const known = async (eventId: string) => {
    const parsed = parse(eventId);
    if (!parsed) return undefined;
    const found = await redis.xrange(prefix + parsed.streamId, parsed.entry, parsed.entry);
    return found.length > 0 ? parsed : undefined;
  };

  return {
    async storeEvent(streamId, message) {
      const key = prefix + streamId;
      // One round trip: the append (trimmed) and the expiry that follows the stream's activity.
      const results = await redis
        .multi()
        .xadd(key, 'MAXLEN', '~', maxEvents, '*', 'm', JSON.stringify(message))
        .pexpire(key, ttlMs)
        .exec();
      const [error, entry] = results?.[0] ?? [new Error('redis transaction aborted'), null];
      if (error) throw error;
      return `${streamId}_${String(entry)}`;
    },
    async getStreamIdForEventId(eventId) {
      return (await known(eventId))?.streamId;
    },
    async replayEventsAfter(lastEventId, { send }) {
      const last = await known(lastEventId);
      if (!last) throw new Error(`unknown event id: ${lastEventId}`);
      await sendEntries(
        last.streamId,
        await redis.xrange(prefix + last.streamId, `(${last.entry}`, '+'),
        send,
      );
      return last.streamId;
    },
    async replayStream(streamId, { send }) {
      await sendEntries(streamId, await redis.xrange(prefix + streamId, '-', '+'), send);
    },
  };
}

/** Sends a Redis stream's entries as the events they were stored as (`m`: the message's JSON). */
async function sendEntries(
  streamId: string,
  entries: [string, string[]][],
  send: (eventId: string, message: JSONRPCMessage) => Promise<void>,
): Promise<void> {
  for (const [entry, fields] of entries) {
    const json = fields[fields.indexOf('m') + 1];
    if (json === undefined) continue;
    await send(`${streamId}_${entry}`, JSON.parse(json) as JSONRPCMessage);
  }
}
