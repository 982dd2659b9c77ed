import type { Hono } from 'hono';
import type { ToolScope } from '../composition/tool-scope.js';
import type { ApertureConfig } from '../config/config-schema.js';
import type { Tool } from '../foundation/model/tool.js';
import type { CallerContext } from '../foundation/ports/tool-backend.js';
import type { Authenticator } from '../operations/auth/authenticator.js';
import type { RedisConnection } from '../operations/state/redis-connection.js';
import type { HttpAppOptions, Readiness } from '../surfaces/http/http-app.js';
import type { ListenExtras } from '../surfaces/mcp/listen-extras.js';
import type { PassthroughListing } from '../surfaces/mcp/passthrough/passthrough-listing.js';
import type { McpSessionFactory } from '../surfaces/mcp/session-factory.js';
import type { SurfaceContext } from '../surfaces/surface-context.js';
import type { FeatureHttp, HttpFeatureOptions, RouteContext } from './features/feature.js';
import { listenFailure } from './listen-failure.js';

/** A running HTTP listener. */
export interface HttpListener {
  url: string;
  port: number;
  /**
   * Every route this listener answers, as `METHOD /path` (`ALL` for any method), in the order
   * they were registered: what the features assembled for this config (the HTTP reference is
   * generated from it). Middleware entries (paths with `*`) are left out.
   */
  routes: readonly string[];
  close(): Promise<void>;
}

/** What the HTTP surfaces are built from: the gateway's parts, as the composition root wired them. */
export interface HttpServerParts {
  config: ApertureConfig;
  /** Everything every surface shares but the base URL, which is known only once listening. */
  surface: Omit<SurfaceContext, 'baseUrl'>;
  createSession: McpSessionFactory;
  /** Verifies credentials; undefined when `auth` configures none (every surface is open). */
  authenticator: Pick<Authenticator, 'authenticate'> | undefined;
  hasToolset: (name: string) => boolean;
  /** The name a tool has in flat exposure (the manifest lists it so). */
  flatName: (tool: Tool) => string;
  /** The downstream prompts and resources a scope's sessions are served (the manifest lists them). */
  passthrough?: (scope: ToolScope, caller?: CallerContext) => Promise<PassthroughListing>;
  readiness: () => Readiness;
  /** Subscribes to catalog changes (debounced); returns the unsubscribe function. */
  onCatalogChange?: (listener: () => void) => () => void;
  /** What 2026-07-28 listen streams carry beyond tool changes. */
  listen?: ListenExtras;
  /**
   * What the gateway's features add, in list order (read when a listener starts): their routes,
   * who is told the base URL, and the options below.
   */
  features?: () => readonly FeatureHttp[];
}

/** The options of the HTTP server a feature may supply (`FeatureHttp.options`). */
/** What shutdown needs of one HTTP listener. */
interface HttpDrain {
  stopAccepting(): void;
  /** Resolves when no answer is being written (event streams aside), or after `ms`. */
  answered(ms: number): Promise<void>;
}

const MANIFEST_DESCRIPTION = 'Aperture tool gateway: one catalog of tools from every configured source.';
const A2A_DESCRIPTION = 'Aperture tool gateway: every tool of its catalog, callable by A2A agents.';

/**
 * The gateway's HTTP serving: every surface (MCP, REST, A2A, manifest, health) on one Node server
 * per `listen`, with the connection caps and deadlines of `http.*`, and the two halves of a
 * graceful shutdown (stop accepting, then wait for the answers being written).
 */
export class HttpServer {
  /** Set by `stopAccepting`: the HTTP surfaces start nothing new. */
  private draining = false;
  private readonly listeners: HttpDrain[] = [];
  private readonly closers: (() => Promise<void>)[] = [];
  private url = '';
  /** The Redis connection opened here when the gateway gave none (`state.driver: redis`). */
  private ownRedis: RedisConnection | undefined;

  constructor(private readonly parts: HttpServerParts) {}

  /** The base URL of the last listener started, `''` before one is. */
  get baseUrl(): string {
    return this.url;
  }

  /** Starts an HTTP server (MCP, REST, A2A, health) on host:port; port 0 picks a free port. */
  async listen(host: string, port: number): Promise<HttpListener> {
    // The HTTP stack is loaded only when HTTP is served (one-shot CLI commands never need it).
    const { createHttpApp } = await import('../surfaces/http/http-app.js');
    const { restRoutes } = await import('../surfaces/rest/rest-routes.js');
    const { lazyA2aRoutes } = await import('../surfaces/a2a/lazy-a2a-routes.js');
    const { manifestRoutes } = await import('../surfaces/http/mcp-manifest.js');
    const { ConnectionGuard, perAddressCap } = await import('../surfaces/http/connection-guard.js');
    const { isLoopback } = await import('../surfaces/http/host-guard.js');
    const { listenHttp, stopAccepting, trackAnswers } = await import('../surfaces/http/http-listener.js');
    const { config, surface, authenticator } = this.parts;
    const features = this.parts.features?.() ?? [];
    const options: HttpFeatureOptions = Object.assign({}, ...features.map((feature) => feature.options));
    const http = config.http;
    const log = surface.log;
    const connections = new ConnectionGuard({
      maxConnections: http.maxConnections,
      maxPerAddress: perAddressCap({
        bindHost: host,
        authConfigured: authenticator !== undefined,
        configured: http.maxConnectionsPerAddress,
      }),
      log: log.child({ component: 'http' }),
    });
    let baseUrl = '';
    const context: SurfaceContext = { ...surface, baseUrl: () => baseUrl };
    const a2aConfig = config.a2a;
    const a2a = lazyA2aRoutes(context, {
      description: A2A_DESCRIPTION,
      ...(a2aConfig?.card ? { card: a2aConfig.card } : {}),
      ...(a2aConfig?.push ? { push: a2aConfig.push.enabled ? a2aConfig.push : false } : {}),
      ...(options.a2aTaskStore ? { taskStore: options.a2aTaskStore } : {}),
    });
    this.closers.push(() => a2a.close());
    const auth = config.auth;
    const shared = await this.sharedSessions(options.redis);
    const routeContext: RouteContext = { surface: context, host, authEnabled: authenticator !== undefined };
    const routesOf = async (pick: (feature: FeatureHttp) => Promise<readonly Hono[]> | undefined) =>
      (await Promise.all(features.map((feature) => pick(feature) ?? []))).flat();
    const { app, close } = createHttpApp(context, {
      createSession: this.parts.createSession,
      ...shared,
      ...(authenticator
        ? {
            auth: {
              authenticator,
              ...(auth.oauth ? { oauth: auth.oauth } : {}),
              resourceName: config.server.name,
              hasToolset: this.parts.hasToolset,
            },
          }
        : {}),
      rest: restRoutes(context, { policies: { rateLimited: config.rateLimits.length > 0 } }),
      extra: [
        // The features' routes (the console's, trust's, OAuth's callback), in list order.
        ...(await routesOf((feature) => feature.routes?.(routeContext))),
        a2a.app,
        manifestRoutes(context, {
          description: MANIFEST_DESCRIPTION,
          flatName: this.parts.flatName,
          ...(this.parts.passthrough ? { passthrough: this.parts.passthrough } : {}),
        }),
      ],
      beforeAuth: await routesOf((feature) => feature.beforeAuth?.(routeContext)),
      cors: { origins: http.cors.origins },
      bindHost: host,
      allowedHosts: http.allowedHosts,
      onAuthenticated: (socket) => connections.trust(socket),
      sessionIdleMs: http.sessionIdleMs,
      maxSessionsPerIdentity: http.maxSessionsPerIdentity,
      heartbeatMs: http.heartbeatMs,
      draining: () => this.draining,
      readiness: this.parts.readiness,
      ...(this.parts.onCatalogChange ? { onCatalogChange: this.parts.onCatalogChange } : {}),
      ...(this.parts.listen ? { listen: this.parts.listen } : {}),
      ...(options.metrics ? { metrics: options.metrics } : {}),
    });
    const server = await listenHttp(app.fetch, {
      hostname: host,
      port,
      connections,
      headersTimeoutMs: http.headersTimeoutMs,
      requestTimeoutMs: http.requestTimeoutMs,
      keepAliveTimeoutMs: http.keepAliveTimeoutMs,
    }).catch((error: unknown) => {
      throw listenFailure(error, host, port);
    });
    const answering = trackAnswers(server);
    // Once every connection is gone after the listening socket closed (by `stopAccepting` or `stop`).
    const closed = new Promise<void>((resolve) => server.once('close', () => resolve()));
    this.listeners.push({
      // Idle keep-alive connections stay: a request on its way on one is answered, not reset.
      stopAccepting: () => stopAccepting(server),
      answered: answering,
    });
    const address = server.address();
    const actualPort = typeof address === 'object' && address ? address.port : port;
    const hostPart = host.includes(':') ? `[${host}]` : host;
    const url = `http://${hostPart}:${actualPort}`;
    baseUrl = url;
    this.url = url;
    for (const feature of features) feature.listening?.(url);
    const stop = async () => {
      await close();
      // After `stopAccepting` the listening socket is closed already (`close` then only ends the
      // idle connections and the deadline checks); `closed` settles once every connection is gone,
      // whichever call closed the socket.
      server.close();
      // Streaming responses keep sockets open; end them so the server closes.
      (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      await closed;
    };
    this.closers.push(stop);
    log.info({ url: `${url}/mcp` }, 'serving MCP over HTTP');
    if (!authenticator && !isLoopback(host)) {
      log.warn(
        { host },
        'no auth configured on a non-loopback address: anyone who reaches it can run every tool (see auth in the README)',
      );
    }
    const routes = [
      ...new Set(app.routes.filter((r) => !r.path.includes('*')).map((r) => `${r.method} ${r.path}`)),
    ];
    return { url, port: actualPort, routes, close: stop };
  }

  /**
   * The first half of a graceful shutdown: every listener stops accepting connections and the
   * surfaces start nothing new (messages of open MCP sessions still pass).
   */
  stopAccepting(): void {
    this.draining = true;
    for (const listener of this.listeners) listener.stopAccepting();
  }

  /** Resolves when no listener is writing an answer (event streams aside), or after `ms`. */
  async answered(ms: number): Promise<void> {
    await Promise.all(this.listeners.map((listener) => listener.answered(ms)));
  }

  /**
   * With `state.driver: redis`, what makes this listener's MCP sessions any replica's: the session
   * directory and event store on Redis, and a relay of this listener's own. Otherwise nothing (the
   * sessions stay in this process, exactly as with one replica).
   */
  private async sharedSessions(
    given: RedisConnection | undefined,
  ): Promise<Pick<HttpAppOptions, 'sharedSessions' | 'eventStore'>> {
    const { config, surface } = this.parts;
    const settings = config.state.redis;
    if (config.state.driver !== 'redis' || !settings) return {};
    const { createRedisConnection } = await import('../operations/state/redis-connection.js');
    const { redisSessionDirectory } = await import('../surfaces/mcp/shared/redis-session-directory.js');
    const { redisEventStore } = await import('../surfaces/mcp/shared/redis-event-store.js');
    const { redisSessionRelay } = await import('../surfaces/mcp/shared/redis-session-relay.js');
    const log = surface.log.child({ component: 'sessions' });
    let redis = given ?? this.ownRedis;
    if (!redis) {
      const own = createRedisConnection(settings, log);
      this.ownRedis = own;
      this.closers.push(() => own.close());
      redis = own;
      // A replica that starts while Redis is away still starts (degraded), after waiting for it
      // as long as start-up waits for anything. The gateway's shared connection has had that wait.
      await own
        .whenUp(config.startup.waitMs)
        .catch((error: unknown) => log.warn({ err: String(error) }, 'starting without Redis'));
    }
    const ttlMs = config.http.sessionIdleMs;
    const { client, subscriber, prefix } = redis;
    return {
      sharedSessions: {
        directory: redisSessionDirectory({ redis: client, prefix, ttlMs }),
        relay: redisSessionRelay({ redis: client, subscriber, prefix, log }),
      },
      eventStore: redisEventStore({ redis: client, prefix, ttlMs }),
    };
  }

  /** Closes every listener, its MCP sessions and the A2A surface. */
  async close(): Promise<void> {
    await Promise.allSettled(this.closers.splice(0).map((close) => close()));
  }
}
