import type { Socket } from 'node:net';
import type { HttpBindings } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { ANONYMOUS_CALLER as ANONYMOUS } from '../../foundation/ports/tool-backend.js';
import type { EventStore } from '../mcp/event-store.js';
import { DEFAULT_MAX_SESSIONS_PER_IDENTITY } from '../mcp/http-session-defaults.js';
import { LegacySseSessions } from '../mcp/legacy-sse-sessions.js';
import type { ListenExtras } from '../mcp/listen-extras.js';
import { ModernHttpEndpoint } from '../mcp/modern-http.js';
import type { McpSessionFactory, SessionContext } from '../mcp/session-factory.js';
import { SessionQuota } from '../mcp/session-quota.js';
import { type SharedSessions, StreamableHttpSessions } from '../mcp/streamable-http-sessions.js';
import type { SurfaceContext } from '../surface-context.js';
import { scopeError } from './auth-middleware.js';
import { type CorsOptions, cors } from './cors.js';
import { hostGuard } from './host-guard.js';
import { type HttpAuthOptions, httpAuth } from './http-auth.js';
import { httpError } from './http-error.js';
import { requestCaller } from './request-caller.js';
import { pagePolicy } from './security-headers.js';
import { simpleRequestGuard } from './simple-request-guard.js';

/** What `/readyz` reports. */
export interface Readiness {
  ready: boolean;
  [key: string]: unknown;
}

/** What only the HTTP app needs besides the `SurfaceContext`. */
export interface HttpAppOptions {
  createSession: McpSessionFactory;
  /** Credentials required on every route but health and metadata; absent: every route is open. */
  auth?: HttpAuthOptions;
  /** The REST API routes (mounted at the root: `/api/...`, `/openapi.json`). */
  rest?: Hono;
  /** Extra routes mounted at the root (A2A, manifest…). */
  extra?: Hono[];
  /**
   * Routes answered before credentials are checked (after the host guard and CORS): the web
   * console's page and assets, static files holding no data. What they pass on (`next`) meets the
   * auth middleware as usual.
   */
  beforeAuth?: Hono[];
  cors: CorsOptions;
  /** The bind address; loopback binds get DNS-rebinding protection. */
  bindHost: string;
  /** Host names accepted besides loopback ones (`http.allowedHosts`). */
  allowedHosts?: readonly string[];
  /** Called with the connection of every request whose credentials were verified. */
  onAuthenticated?: (socket: Socket | undefined) => void;
  readiness: () => Readiness;
  /** Serves `GET /metrics` (Prometheus text); absent: no such route (404). */
  metrics?: { readonly contentType: string; scrape(): Promise<string> };
  /** MCP sessions idle for longer are closed. Default 30 minutes. */
  sessionIdleMs?: number;
  /** Open MCP sessions (both transports) one identity may hold. Default `DEFAULT_MAX_SESSIONS_PER_IDENTITY`. */
  maxSessionsPerIdentity?: number;
  /** Keep-alive comments on long-lived MCP event streams this often (0 never). Default 15 s. */
  heartbeatMs?: number;
  /** 2025-era MCP sessions shared with other replicas (`state.driver: redis`); absent: this process's. */
  sharedSessions?: SharedSessions;
  /** Where MCP stream events are kept for resumption; absent: in this process's memory. */
  eventStore?: EventStore;
  /**
   * Subscribes to catalog changes; returns the unsubscribe function. 2026-07-28 clients listening
   * (`subscriptions/listen`) hear of them, as 2025 sessions do through their own servers.
   */
  onCatalogChange?: (listener: () => void) => () => void;
  /** What 2026-07-28 listen streams carry beyond tool changes; absent: tool changes only. */
  listen?: ListenExtras;
  /** True once the gateway is shutting down: only messages of open MCP sessions are still served. */
  draining?: () => boolean;
}

/**
 * The gateway's one HTTP server: MCP Streamable HTTP at `/mcp`, legacy SSE at `/sse` +
 * `/messages`, the REST API, health at `/healthz` and `/readyz` (docs/DESIGN.md §4 routes).
 */
export function createHttpApp(
  context: SurfaceContext,
  options: HttpAppOptions,
): {
  app: Hono<{ Bindings: HttpBindings }>;
  close: () => Promise<void>;
} {
  const log = context.log.child({ component: 'http' });
  const heartbeat = options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs };
  const modern = new ModernHttpEndpoint({
    createSession: options.createSession,
    maxBodyBytes: context.maxBodyBytes,
    ...heartbeat,
    ...(options.listen ? { listen: options.listen } : {}),
    serverInfo: { name: context.info.name, version: context.info.version },
    log,
  });
  const unsubscribe = options.onCatalogChange?.(() => modern.toolsChanged());
  // One bound per identity over both session transports.
  const quota = new SessionQuota({
    maxPerOwner: options.maxSessionsPerIdentity ?? DEFAULT_MAX_SESSIONS_PER_IDENTITY,
  });
  const streamable = new StreamableHttpSessions({
    createSession: options.createSession,
    modern,
    maxBodyBytes: context.maxBodyBytes,
    ...(options.sessionIdleMs === undefined ? {} : { idleMs: options.sessionIdleMs }),
    quota,
    ...heartbeat,
    ...(options.sharedSessions ? { shared: options.sharedSessions } : {}),
    ...(options.eventStore ? { eventStore: options.eventStore } : {}),
    log,
  });
  const sse = new LegacySseSessions({
    createSession: options.createSession,
    messagesPath: '/messages',
    maxBodyBytes: context.maxBodyBytes,
    quota,
    ...heartbeat,
    log,
  });
  const app = new Hono<{ Bindings: HttpBindings }>();
  // First, so that it sees every answer, refusals of the guards below included.
  app.use('*', pagePolicy());

  const draining = options.draining;
  if (draining) {
    // Shutting down: nothing new starts (a session, a stream, a REST call). Messages of open
    // sessions still pass — a call in flight may need its client's answer (sampling) to finish.
    app.use('*', async (c, next) => {
      if (!draining() || c.req.header('mcp-session-id') || c.req.path === '/messages') return next();
      c.header('connection', 'close');
      return httpError(c, new GatewayError('backend_unavailable', 'The gateway is shutting down'));
    });
  }
  app.use(
    '*',
    hostGuard({
      bindHost: options.bindHost,
      allowedOrigins: options.cors.origins,
      ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
    }),
  );
  app.use('*', cors(options.cors));
  const onAuthenticated = options.onAuthenticated;
  const auth = options.auth
    ? httpAuth({
        ...options.auth,
        log,
        ...(onAuthenticated
          ? {
              onAuthenticated: (c: Context) =>
                onAuthenticated((c.env as HttpBindings | undefined)?.incoming?.socket),
            }
          : {}),
      })
    : undefined;
  for (const routes of options.beforeAuth ?? []) app.route('/', routes);
  if (auth) app.use('*', auth.middleware);
  app.use('*', simpleRequestGuard()); // no cross-site form post or no-cors fetch changes state
  if (auth?.routes) app.route('/', auth.routes);

  /** The MCP session context of a request, or the 404/403 answer for a toolset it cannot use. */
  const mcpRoute =
    (serve: (c: Context<{ Bindings: HttpBindings }>, session: SessionContext) => Promise<Response>) =>
    (c: Context<{ Bindings: HttpBindings }>): Promise<Response> | Response => {
      const toolset = c.req.param('toolset');
      const caller = requestCaller(c) ?? ANONYMOUS;
      let scope: SessionContext['scope'];
      try {
        scope = context.resolveScope({ caller, ...(toolset !== undefined ? { toolset } : {}) });
      } catch (error) {
        return scopeError(c, error);
      }
      return serve(c, { caller: toolset !== undefined ? { ...caller, toolset } : caller, scope });
    };
  app.on(
    ['POST', 'GET', 'DELETE'],
    '/mcp',
    mcpRoute((c, session) => streamable.handle(c, session)),
  );
  app.all('/mcp', (c) =>
    httpError(c, new GatewayError('method_not_allowed', `${c.req.method} is not allowed on /mcp`)),
  );
  app.on(
    ['POST', 'GET', 'DELETE'],
    '/mcp/:toolset',
    mcpRoute((c, session) => streamable.handle(c, session, `/mcp/${c.req.param('toolset')}`)),
  );
  app.all('/mcp/:toolset', (c) =>
    httpError(c, new GatewayError('method_not_allowed', `${c.req.method} is not allowed on ${c.req.path}`)),
  );
  app.get(
    '/sse',
    mcpRoute((c, session) => sse.open(c, session)),
  );
  app.post('/messages', (c) => sse.post(c, requestCaller(c) ?? ANONYMOUS));

  if (options.rest) app.route('/', options.rest);
  for (const routes of options.extra ?? []) app.route('/', routes);

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  /**
   * Operational data spans every toolset (tool ids, source names, failure reasons): with auth
   * configured only an admin identity sees it; without auth (a loopback gateway) everyone may.
   */
  const seesEverything = (c: Context): boolean => !options.auth || requestCaller(c)?.admin === true;
  /** An authenticated caller confined to no toolset: every source's state is its own business. */
  const seesAllTools = (c: Context): boolean => {
    const caller = requestCaller(c);
    return caller !== undefined && caller.toolsets === undefined;
  };
  app.get('/readyz', (c) => {
    const readiness = options.readiness();
    // Probes carry no credentials: with auth on they get the verdict, not the inventory (sources,
    // URLs, errors across every toolset) — that is for admins and unconfined callers.
    const body = seesEverything(c) || seesAllTools(c) ? readiness : { ready: readiness.ready };
    return c.json(body, readiness.ready ? 200 : 503);
  });
  const metrics = options.metrics;
  if (metrics) {
    app.get('/metrics', async (c) => {
      if (!seesEverything(c)) {
        return httpError(
          c,
          new GatewayError(
            'forbidden',
            'Metrics cover every toolset and need an admin identity (auth.apiKeys[].admin: true)',
          ),
        );
      }
      return c.body(await metrics.scrape(), 200, { 'content-type': metrics.contentType });
    });
  }
  app.get('/', (c) =>
    c.json({
      name: context.info.name,
      version: context.info.version,
      endpoints: {
        mcp: '/mcp',
        sse: '/sse',
        rest: '/api/tools',
        openapi: '/openapi.json',
        health: '/healthz',
        ready: '/readyz',
      },
    }),
  );

  app.notFound((c) => httpError(c, new GatewayError('not_found', `No route ${c.req.method} ${c.req.path}`)));
  app.onError((error, c) => {
    // A malformed %-escape in a path (`decodeURIComponent`) is the request's fault, whichever
    // route decoded it: 400, never a 500 that reads as a gateway bug.
    if (error instanceof URIError) {
      return httpError(c, new GatewayError('invalid_request', 'The request path has a malformed %-escape'));
    }
    log.error({ err: error, path: c.req.path }, 'unhandled error in HTTP handler');
    return httpError(c, new GatewayError('internal', 'Internal error'));
  });

  const close = async () => {
    unsubscribe?.();
    await Promise.allSettled([streamable.closeAll(), sse.closeAll(), modern.close()]);
  };
  return { app, close };
}
