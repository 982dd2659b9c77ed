import type { HttpBindings } from '@hono/node-server';
import { Hono } from 'hono';
import type { Logger } from '../../foundation/logger.js';
import { LegacySseSessions } from '../mcp/legacy-sse-sessions.js';
import type { McpSessionFactory } from '../mcp/session-factory.js';
import { StreamableHttpSessions } from '../mcp/streamable-http-sessions.js';
import { type CorsOptions, cors } from './cors.js';
import { hostGuard } from './host-guard.js';
import { httpError } from './http-error.js';

/** What `/readyz` reports. */
export interface Readiness {
  ready: boolean;
  [key: string]: unknown;
}

export interface HttpAppOptions {
  createSession: McpSessionFactory;
  /** The REST API routes (mounted at the root: `/api/...`, `/openapi.json`). */
  rest?: Hono;
  /** Extra routes mounted at the root (A2A, manifest…). */
  extra?: Hono[];
  cors: CorsOptions;
  /** The bind address; loopback binds get DNS-rebinding protection. */
  bindHost: string;
  maxBodyBytes: number;
  readiness: () => Readiness;
  /** Shown at `/`. */
  info: { name: string; version: string };
  log: Logger;
}

/**
 * The gateway's one HTTP server: MCP Streamable HTTP at `/mcp`, legacy SSE at `/sse` +
 * `/messages`, the REST API, health at `/healthz` and `/readyz` (DESIGN.md §4 routes).
 */
export function createHttpApp(options: HttpAppOptions): {
  app: Hono<{ Bindings: HttpBindings }>;
  close: () => Promise<void>;
} {
  const { log } = options;
  const streamable = new StreamableHttpSessions({
    createSession: options.createSession,
    maxBodyBytes: options.maxBodyBytes,
    log,
  });
  const sse = new LegacySseSessions({
    createSession: options.createSession,
    messagesPath: '/messages',
    maxBodyBytes: options.maxBodyBytes,
    log,
  });
  const app = new Hono<{ Bindings: HttpBindings }>();

  app.use('*', hostGuard({ bindHost: options.bindHost, allowedOrigins: options.cors.origins }));
  app.use('*', cors(options.cors));

  app.on(['POST', 'GET', 'DELETE'], '/mcp', (c) => streamable.handle(c));
  app.all('/mcp', (c) => httpError(c, 405, 'method_not_allowed', `${c.req.method} is not allowed on /mcp`));
  app.get('/sse', (c) => sse.open(c));
  app.post('/messages', (c) => sse.post(c));

  if (options.rest) app.route('/', options.rest);
  for (const routes of options.extra ?? []) app.route('/', routes);

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', (c) => {
    const readiness = options.readiness();
    return c.json(readiness, readiness.ready ? 200 : 503);
  });
  app.get('/', (c) =>
    c.json({
      name: options.info.name,
      version: options.info.version,
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

  app.notFound((c) => httpError(c, 404, 'not_found', `No route ${c.req.method} ${c.req.path}`));
  app.onError((error, c) => {
    log.error({ err: error, path: c.req.path }, 'unhandled error in HTTP handler');
    return httpError(c, 500, 'internal', 'Internal error');
  });

  const close = async () => {
    await Promise.allSettled([streamable.closeAll(), sse.closeAll()]);
  };
  return { app, close };
}
