import { randomUUID } from 'node:crypto';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type { Redis } from 'ioredis';
import type { Logger } from '../../../foundation/ports/logger.js';
import { optionError } from '../../../foundation/util/option-checks.js';
import type { SessionRelay } from './session-relay.js';

export interface RedisSessionRelayOptions {
  /** The client messages are published on; the relay never closes it. */
  redis: Redis;
  /**
   * A connection in subscriber mode shared with other parts (the relay subscribes to its own
   * channel on it and leaves it open); absent: the relay opens a duplicate of `redis` for itself.
   */
  subscriber?: Redis;
  /** Prefix of every channel (`state.redis.prefix`); default `aperture:`. */
  prefix?: string;
  /** This replica's name; default a random UUID (replicas need not know each other's). */
  replica?: string;
  log: Logger;
}

/**
 * A {@link SessionRelay} over Redis pub/sub: each replica subscribes to its own channel
 * (`<prefix>mcp:replica:<name>`) and publishes on the command client.
 */
export function redisSessionRelay(options: RedisSessionRelayOptions): SessionRelay {
  const { redis, log } = options;
  if (!redis || typeof redis.duplicate !== 'function')
    throw optionError('redisSessionRelay redis', 'must be an ioredis client');
  const replica = options.replica ?? randomUUID();
  if (!/^[\w.-]+$/.test(replica))
    throw optionError(
      'redisSessionRelay replica',
      `must be letters, digits, . _ or -, got ${JSON.stringify(replica)}`,
    );
  const prefix = `${options.prefix ?? 'aperture:'}mcp:replica:`;
  const channel = prefix + replica;
  let listening: { connection: Redis; onMessage: (from: string, text: string) => void } | undefined;
  return {
    replica,
    async listen(handler) {
      if (listening) throw new Error('redisSessionRelay: already listening');
      // A subscription survives reconnects (ioredis subscribes again), so it queues until connected.
      const connection =
        options.subscriber ?? redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
      const onMessage = (from: string, text: string) => {
        if (from !== channel) return;
        try {
          const { session, message } = JSON.parse(text) as { session: string; message: JSONRPCMessage };
          handler(session, message);
        } catch (error) {
          log.warn({ err: (error as Error).message }, 'unreadable session relay message dropped');
        }
      };
      if (!options.subscriber)
        connection.on('error', (error: Error) =>
          log.debug({ err: error.message }, 'session relay connection error'),
        );
      connection.on('message', onMessage);
      listening = { connection, onMessage };
      await connection.subscribe(channel);
    },
    async send(to, sessionId, message) {
      await redis.publish(prefix + to, JSON.stringify({ session: sessionId, message }));
    },
    async close() {
      const current = listening;
      listening = undefined;
      if (!current) return;
      // Messages already on the socket must not reach the handler after close.
      current.connection.off('message', current.onMessage);
      if (options.subscriber) await current.connection.unsubscribe(channel).catch(() => {});
      else current.connection.disconnect();
    },
  };
}
