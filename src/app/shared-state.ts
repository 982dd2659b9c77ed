import type { TaskStore } from '@a2a-js/sdk/server';
import type { Catalog } from '../catalog/catalog.js';
import type { ApertureConfig } from '../config/config-schema.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { type Logger, silentLogger } from '../foundation/ports/logger.js';
import type { StateStore } from '../foundation/ports/state-store.js';
import { RedisCacheStore } from '../operations/cache/redis-cache-store.js';
import { RedisSharedBuckets } from '../operations/limits/redis-shared-buckets.js';
import type { RedisConnection, RedisConnectionOptions } from '../operations/state/redis-connection.js';
import { RedisNotificationBus, type SharedNotification } from '../operations/state/redis-notification-bus.js';
import { RedisStateStore } from '../operations/state/redis-state-store.js';
import type { DownstreamServer } from '../sources/mcp/downstream-server.js';
import type { SharedPolicyBacking } from './call-policies.js';
import { openStateStore, type StateStoreOptions } from './state-directory.js';

/** What `/readyz` and `doctor` say of the shared state. */
export interface SharedStateReadiness {
  driver: 'redis';
  /** The URL without its password. */
  url: string;
  state: 'connecting' | 'up' | 'down';
  reason?: string;
  /** State writes made while Redis was away, written when it is back. */
  unsynced?: number;
}

/** Notifications of downstream servers that other gateways act on. */
const SHARED_METHODS = new Set([
  'notifications/tools/list_changed',
  'notifications/resources/updated',
  'notifications/resources/list_changed',
  'notifications/prompts/list_changed',
]);

/** A tool list change this gateway heard itself this recently is not re-listed again for another's message. */
const ALSO_HEARD_MS = 2000;

/**
 * Everything a gateway keeps in Redis with `state.driver: redis`, over one connection
 * (`createRedisConnection`: one client, one subscriber): the state store (learned queries,
 * failure statistics, embeddings, trust decisions, OAuth tokens), the result cache, rate-limit
 * buckets, A2A tasks and the fan-out of downstream notifications. Downstream connections are not
 * shared: each gateway supervises its own (a stdio server is a child process of one of them).
 */
export class SharedState {
  readonly store: RedisStateStore;
  readonly bus: RedisNotificationBus;
  readonly policies: SharedPolicyBacking;
  private readonly buckets: RedisSharedBuckets;
  private readonly url: string;
  private readonly detachers: (() => void)[] = [];

  private constructor(
    readonly connection: RedisConnection,
    settings: NonNullable<ApertureConfig['state']['redis']>,
    private readonly log: Logger,
  ) {
    this.url = redactedUrl(settings.url);
    this.store = new RedisStateStore({ connection, log: log.child({ component: 'state' }) });
    this.bus = new RedisNotificationBus(connection, log.child({ component: 'notifications' }));
    this.buckets = new RedisSharedBuckets(connection);
    this.policies = {
      cacheStore: (bounds) => new RedisCacheStore({ connection, ...bounds }),
      buckets: this.buckets,
    };
  }

  /**
   * Connects and loads the shared state store, waiting at most `waitMs` for Redis: a gateway
   * whose Redis is down still starts (it serves what it can and `/readyz` says why it is not
   * ready), and loads the store as soon as Redis answers.
   */
  static async open(config: ApertureConfig, log: Logger, waitMs: number): Promise<SharedState> {
    const settings = config.state.redis;
    if (!settings) throw new Error('state.redis is required with driver: redis');
    const { createRedisConnection } = await loadRedis();
    const connection = createRedisConnection(connectionOptions(settings), log.child({ component: 'redis' }));
    const shared = new SharedState(connection, settings, log);
    try {
      await connection.whenUp(waitMs);
      await shared.store.hydrate();
    } catch (error) {
      // Tried once (it fails at once: no offline queue), the store hydrates whenever Redis is back.
      if (connection.health.current().state !== 'up') void shared.store.hydrate().catch(() => {});
      log.warn(
        { err: error instanceof Error ? error.message : String(error) },
        'shared state not loaded yet; serving from memory until Redis answers',
      );
    }
    return shared;
  }

  /** The A2A task store (loaded with the A2A SDK, on the first A2A request). */
  async taskStore(maxTasks?: number): Promise<TaskStore> {
    const { RedisTaskStore } = await import('../surfaces/a2a/redis-task-store.js');
    return new RedisTaskStore(this.connection, maxTasks);
  }

  /** Whether Redis answers; the gateway is not ready while it does not. */
  readiness(): SharedStateReadiness {
    const health = this.connection.health.current();
    const unsynced = this.store.unsynced;
    return {
      driver: 'redis',
      url: this.url,
      state: health.state,
      ...(health.reason === undefined ? {} : { reason: health.reason }),
      ...(unsynced > 0 ? { unsynced } : {}),
    };
  }

  /**
   * Fans out the downstream notifications other gateways act on: what a server announces over
   * this gateway's connection is published; what another gateway publishes is acted on here with
   * this gateway's own connection to the same server — a tool list is listed again (sessions hear
   * `tools/list_changed`, also when this gateway's list did not change: the server said it did),
   * a resource update reaches the sessions subscribed to it. `servers()` is read on every event, so
   * servers a reload adds take part too.
   */
  fanOut(servers: () => readonly DownstreamServer[], catalog: Catalog): void {
    const attached = new WeakSet<DownstreamServer>();
    /** Set while a notification from another gateway is handed to local listeners (not published again). */
    let relaying = false;
    /**
     * When this gateway's own connection last announced a tool list change, by server: a server
     * that tells every connection (a remote one) is heard by all gateways at once, and each has
     * re-listed already — the others' messages about it are not acted on again.
     */
    const heard = new Map<string, number>();
    const attach = () => {
      for (const server of servers()) {
        if (attached.has(server)) continue;
        attached.add(server);
        this.detachers.push(
          server.onNotification((method, params) => {
            if (relaying || !SHARED_METHODS.has(method)) return;
            if (method === 'notifications/tools/list_changed') heard.set(server.name, Date.now());
            this.bus.publish({ server: server.name, method, ...(params ? { params } : {}) });
          }),
        );
      }
    };
    attach();
    this.detachers.push(catalog.onChange(attach));
    this.detachers.push(
      this.bus.subscribe((notification: SharedNotification) => {
        attach();
        const server = servers().find((candidate) => candidate.name === notification.server);
        if (!server) return;
        if (notification.method === 'notifications/tools/list_changed') {
          if (Date.now() - (heard.get(server.name) ?? Number.NEGATIVE_INFINITY) < ALSO_HEARD_MS) return;
          const before = catalog.version;
          void server
            .relist()
            .catch((error: unknown) => {
              this.log.debug(
                { server: server.name, err: error instanceof Error ? error.message : String(error) },
                're-listing after another gateway heard a change failed',
              );
            })
            .finally(() => {
              if (catalog.version === before) catalog.touch();
            });
          return;
        }
        relaying = true;
        try {
          server.deliver(notification.method, notification.params);
        } finally {
          relaying = false;
        }
      }),
    );
  }

  async close(): Promise<void> {
    for (const detach of this.detachers.splice(0)) detach();
    this.bus.close();
    await this.store.settled();
    this.store.close();
    await this.connection.close();
  }
}

function connectionOptions(settings: NonNullable<ApertureConfig['state']['redis']>): RedisConnectionOptions {
  return {
    url: settings.url,
    prefix: settings.prefix,
    tls: settings.tls,
    username: settings.username,
    password: settings.password,
    commandTimeoutMs: settings.commandTimeoutMs,
  };
}

function redactedUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return raw;
  }
}

/**
 * The state store a one-shot command (`login`, `trust`, `doctor`) reads and writes: the shared one
 * with `state.driver: redis` — so that a login or a trust decision reaches every gateway — else
 * the local one, as `serve` opens it. Fails with `backend_unavailable` when Redis does not answer
 * within `waitMs`: a command must not write a decision nobody will see.
 */
export async function openCommandState(
  config: ApertureConfig,
  baseDir: string,
  options: StateStoreOptions & { waitMs?: number },
): Promise<{ store: StateStore; close(): Promise<void> }> {
  if (config.state.driver !== 'redis') {
    const store = openStateStore(config.state, baseDir, options);
    return { store, close: async () => store.close() };
  }
  const shared = await SharedState.open(config, options.log, options.waitMs ?? 5000);
  const readiness = shared.readiness();
  if (readiness.state !== 'up') {
    await shared.close();
    throw new GatewayError(
      'backend_unavailable',
      `state: redis ${readiness.url} is not reachable: ${readiness.reason ?? 'no answer'}`,
    );
  }
  return { store: shared.store, close: () => shared.close() };
}

/**
 * What `doctor` says of `state.driver: redis`: whether Redis answers within `timeoutMs`, and why
 * not when it does not. Connects for the check only.
 */
export async function checkSharedState(
  config: ApertureConfig,
  timeoutMs: number,
): Promise<SharedStateReadiness> {
  const settings = config.state.redis;
  if (!settings) throw new GatewayError('config_invalid', 'state.redis is required with driver: redis');
  const { createRedisConnection } = await loadRedis();
  const connection = createRedisConnection(connectionOptions(settings), silentLogger);
  try {
    await connection.whenUp(timeoutMs);
    await connection.client.ping();
    return { driver: 'redis', url: redactedUrl(settings.url), state: 'up' };
  } catch (error) {
    const health = connection.health.current();
    return {
      driver: 'redis',
      url: redactedUrl(settings.url),
      state: 'down',
      reason: health.reason ?? (error instanceof Error ? error.message : String(error)),
    };
  } finally {
    await connection.close();
  }
}

/**
 * The Redis client (ioredis, some 400 KB of JavaScript), loaded only by a gateway that shares its
 * state in Redis: one on the default local state starts without it.
 */
function loadRedis(): Promise<typeof import('../operations/state/redis-connection.js')> {
  return import('../operations/state/redis-connection.js');
}
