import type { Server, ServerResponse } from 'node:http';
import { Server as NetServer } from 'node:net';
import type { ServerType } from '@hono/node-server';
import type { ConnectionGuard } from './connection-guard.js';
import { setNosniff } from './security-headers.js';

/** Time limits of the HTTP server (`http.*TimeoutMs`). */
export interface HttpTimeouts {
  /** The request headers must arrive within this time. */
  headersTimeoutMs: number;
  /** The whole request (headers and body) must arrive within this time; responses are not bound. */
  requestTimeoutMs: number;
  /** Idle keep-alive connections are closed after this time. */
  keepAliveTimeoutMs: number;
}

export interface ListenOptions extends HttpTimeouts {
  hostname: string;
  port: number;
  connections: ConnectionGuard;
}

/**
 * Starts the Node HTTP server for a fetch handler with bounded connections and time limits. The
 * limits apply to receiving requests only, so long-lived SSE and streaming responses stay open;
 * a client that trickles its headers or body is answered 408 and closed within about a second of
 * its deadline.
 */
export async function listenHttp(
  fetch: Parameters<typeof import('@hono/node-server').serve>[0]['fetch'],
  options: ListenOptions,
): Promise<ServerType> {
  const { serve } = await import('@hono/node-server');
  // Node checks the header/request deadlines every `connectionsCheckingInterval` (30 s by
  // default), which would stretch a 10 s limit to 40 s; check about ten times per limit instead.
  const interval = Math.max(250, Math.min(1000, Math.floor(options.headersTimeoutMs / 10)));
  return new Promise((resolve, reject) => {
    const server = serve(
      {
        fetch,
        hostname: options.hostname,
        port: options.port,
        serverOptions: {
          connectionsCheckingInterval: interval,
          headersTimeout: options.headersTimeoutMs,
          // Node requires requestTimeout ≥ headersTimeout (or 0).
          requestTimeout: Math.max(options.requestTimeoutMs, options.headersTimeoutMs),
          keepAliveTimeout: options.keepAliveTimeoutMs,
        },
      },
      () => resolve(server),
    );
    options.connections.attach(server as Server);
    // Before the app's listener: every answer, whoever writes it, carries the header; while
    // draining, every answer also closes its connection after it (no keep-alive to reuse).
    server.prependListener('request', (_request, response: ServerResponse) => {
      setNosniff(response);
      if (draining.has(server)) response.shouldKeepAlive = false;
    });
    server.once('error', reject);
  });
}

/** Servers that stopped accepting: their answers close their connections. */
const draining = new WeakSet<object>();

/**
 * Stops a server accepting connections, the first step of a graceful shutdown, without closing
 * its idle keep-alive connections: a request may already be on its way on one (its bytes
 * arrived, or are arriving), and closing the connection under it resets it — the client sees
 * ECONNRESET instead of an answer. So the connections stay; every request on them is answered
 * (the app answers 503 while draining) with `Connection: close`, and the server's `close` at the
 * end of shutdown ends what is left. (`http.Server.close` would close the idle ones at once: only
 * the listening socket is closed here, as `net.Server.close` does.)
 */
export function stopAccepting(server: ServerType): void {
  draining.add(server);
  if ((server as Server).listening) NetServer.prototype.close.call(server);
}

/**
 * Counts the requests whose answers are being written. GET requests are left out: they are the
 * long-lived event streams (MCP's standalone stream, legacy SSE), which end only when closed.
 */
export function trackAnswers(server: ServerType): (ms: number) => Promise<void> {
  let open = 0;
  const waiters: (() => void)[] = [];
  server.on('request', (request: { method?: string }, response: NodeJS.EventEmitter) => {
    if (request.method === 'GET') return;
    open++;
    response.once('close', () => {
      if (--open === 0) for (const wake of waiters.splice(0)) wake();
    });
  });
  return (ms) =>
    open === 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ms);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
}
