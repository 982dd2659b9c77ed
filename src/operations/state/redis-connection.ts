import { Redis } from 'ioredis';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { Logger } from '../../foundation/ports/logger.js';
import { integerAtLeast } from '../../foundation/util/option-checks.js';

/** How to reach Redis: `state.redis` of the config. */
export interface RedisConnectionOptions {
  /** `redis://…` or `rediss://…` (TLS). */
  url: string;
  /** Prefix of every key and channel (`aperture:`). */
  prefix: string;
  tls?: boolean | undefined;
  username?: string | undefined;
  password?: string | undefined;
  /** The longest one command may take; default 1000 ms. */
  commandTimeoutMs?: number | undefined;
  /** Reconnection backoff bounds; default 100 ms doubling to 2 s (a restarted Redis is back within 2 s). */
  backoff?: { minMs?: number; maxMs?: number } | undefined;
}

/** Whether Redis answers now, and why not when it does not. */
export interface RedisHealth {
  /** `connecting` until the first connection, then `up` or `down`. */
  readonly state: 'connecting' | 'up' | 'down';
  /** Why it is not up (the last connection error), when it is not. */
  readonly reason?: string;
  /** When the state last changed (epoch ms). */
  readonly since: number;
}

/** Follows the health of a {@link RedisConnection}. */
export interface RedisHealthTracker {
  current(): RedisHealth;
  /** Calls `listener` on every change (up → down, down → up); returns the unsubscribe function. */
  onChange(listener: (health: RedisHealth) => void): () => void;
}

/**
 * One gateway's connections to Redis: a client for commands and a subscriber for pub/sub (a
 * connection in subscribe mode can send nothing else), shared by every part that keeps state in
 * Redis. Its behaviour is the failure policy of the whole Redis layer:
 *
 * - **fail fast**: no offline queue and no retry of a failed command, so while Redis is down a
 *   command rejects at once instead of waiting for a reconnect; and every command is bounded by
 *   `commandTimeoutMs`, so no call hangs on a Redis that accepts connections but does not answer.
 *   Callers catch the rejection and fall back to what they have in memory.
 * - **reconnect with backoff** forever (100 ms doubling to 2 s by default).
 * - **health** `up` only when both connections are ready, logged once per change (not per retry).
 */
export interface RedisConnection {
  readonly client: Redis;
  readonly subscriber: Redis;
  readonly health: RedisHealthTracker;
  /** The key and channel prefix. */
  readonly prefix: string;
  /** Resolves once both connections are ready, or rejects after `timeoutMs`. */
  whenUp(timeoutMs: number): Promise<void>;
  /** Closes both connections (pending commands reject); idempotent. */
  close(): Promise<void>;
}

/**
 * Opens the connections of {@link RedisConnection} (in the background: it returns at once, with
 * health `connecting`). Throws `config_invalid` for options that cannot work.
 */
export function createRedisConnection(options: RedisConnectionOptions, log: Logger): RedisConnection {
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw new GatewayError('config_invalid', `state.redis.url: not a URL: ${redact(options.url)}`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new GatewayError('config_invalid', 'state.redis.url: must be a redis:// or rediss:// URL');
  }
  const commandTimeout = integerAtLeast(options.commandTimeoutMs ?? 1000, 1, 'state.redis.commandTimeoutMs');
  const minMs = options.backoff?.minMs ?? 100;
  const maxMs = options.backoff?.maxMs ?? 2000;
  const db = url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0;
  const base = {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : 6379,
    db: Number.isInteger(db) ? db : 0,
    ...(options.username || url.username
      ? { username: options.username ?? decodeURIComponent(url.username) }
      : {}),
    ...(options.password || url.password
      ? { password: options.password ?? decodeURIComponent(url.password) }
      : {}),
    ...(options.tls || url.protocol === 'rediss:' ? { tls: { servername: url.hostname } } : {}),
    connectTimeout: Math.max(commandTimeout, 1000),
    retryStrategy: (times: number) => Math.min(maxMs, minMs * 2 ** Math.min(times - 1, 16)),
    // An error reply to a command is the caller's to handle; never reconnect because of one.
    reconnectOnError: () => false,
    lazyConnect: false,
  };
  const client = new Redis({
    ...base,
    commandTimeout,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectionName: 'aperture',
  });
  // The subscriber queues its (re)subscriptions until it is connected: they are not on any
  // call's path, and ioredis subscribes again by itself after a reconnect.
  const subscriber = new Redis({
    ...base,
    enableOfflineQueue: true,
    maxRetriesPerRequest: null,
    autoResubscribe: true,
    connectionName: 'aperture-subscriber',
  });

  const health = new Health(log, redact(options.url));
  const status = { client: 'connecting', subscriber: 'connecting' } as Record<
    'client' | 'subscriber',
    'connecting' | 'up' | 'down'
  >;
  let lastError: string | undefined;
  /** Set while Redis keeps its connections but does not answer (a PING timed out). */
  let stalled: string | undefined;
  const update = () => {
    if (status.client === 'up' && status.subscriber === 'up' && stalled === undefined) health.set('up');
    else if (status.client === 'down' || status.subscriber === 'down') {
      health.set('down', lastError ?? 'connection to Redis lost');
    } else if (stalled !== undefined) health.set('down', stalled);
  };
  // A Redis that accepts connections but does not answer (overloaded, paused, a half-open TCP
  // connection) never closes them: only a command finds out. A PING now and then does, so
  // readiness says so instead of every call paying the timeout unnoticed.
  const probe = setInterval(
    () => {
      if (client.status !== 'ready') return;
      client.ping().then(
        () => {
          if (stalled === undefined) return;
          stalled = undefined;
          update();
        },
        (error: unknown) => {
          if (client.status !== 'ready') return;
          stalled = `Redis does not answer: ${describeError(error)}`;
          update();
        },
      );
    },
    Math.max(1000, commandTimeout),
  );
  probe.unref();
  const watch = (which: 'client' | 'subscriber', connection: Redis) => {
    connection.on('ready', () => {
      status[which] = 'up';
      lastError = undefined;
      if (which === 'client') stalled = undefined;
      update();
    });
    connection.on('error', (error: Error) => {
      lastError = describeError(error);
      status[which] = 'down';
      update();
    });
    connection.on('close', () => {
      if (closed) return;
      status[which] = 'down';
      update();
    });
  };
  watch('client', client);
  watch('subscriber', subscriber);

  let closed = false;
  return {
    client,
    subscriber,
    health,
    prefix: options.prefix,
    whenUp: (timeoutMs) =>
      new Promise<void>((resolve, reject) => {
        if (health.current().state === 'up') return resolve();
        const timer = setTimeout(() => {
          off();
          reject(
            new GatewayError(
              'backend_unavailable',
              `Redis is not reachable: ${health.current().reason ?? 'no answer'}`,
            ),
          );
        }, timeoutMs);
        const off = health.onChange((next) => {
          if (next.state !== 'up') return;
          clearTimeout(timer);
          off();
          resolve();
        });
      }),
    close: async () => {
      if (closed) return;
      closed = true;
      clearInterval(probe);
      await Promise.allSettled([quit(client), quit(subscriber)]);
    },
  };
}

/** QUIT when connected (pending replies arrive first), else just drop the socket. */
async function quit(connection: Redis): Promise<void> {
  if (connection.status === 'ready') {
    await Promise.race([
      connection.quit().catch(() => {}),
      new Promise((resolve) => setTimeout(resolve, 500).unref()),
    ]);
  }
  connection.disconnect(false);
}

class Health implements RedisHealthTracker {
  private state: RedisHealth = { state: 'connecting', since: Date.now() };
  private readonly listeners = new Set<(health: RedisHealth) => void>();

  constructor(
    private readonly log: Logger,
    private readonly where: string,
  ) {}

  current(): RedisHealth {
    return this.state;
  }

  onChange(listener: (health: RedisHealth) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  set(state: 'up' | 'down', reason?: string): void {
    if (this.state.state === state) {
      // Still down, for a better-known reason (the refused reconnection after the closed
      // connection): readiness says it, the log does not say it again.
      if (state === 'down' && reason !== undefined) this.state = { ...this.state, reason };
      return;
    }
    const first = this.state.state === 'connecting';
    this.state = { state, ...(reason === undefined ? {} : { reason }), since: Date.now() };
    if (state === 'up') this.log.info({ redis: this.where }, first ? 'Redis connected' : 'Redis is back');
    else
      this.log.warn(
        { redis: this.where, reason },
        'Redis is unreachable; serving from memory until it is back',
      );
    for (const listener of [...this.listeners]) {
      try {
        listener(this.state);
      } catch (error) {
        this.log.error({ err: describeError(error) }, 'a Redis health listener failed');
      }
    }
  }
}

function describeError(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return describeError(error.errors[0]);
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

/** The URL without its password, for logs and readiness. */
function redact(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return '(invalid URL)';
  }
}
