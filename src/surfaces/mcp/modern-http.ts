import {
  createMcpHandler,
  isJsonContentType,
  isLegacyRequest,
  type McpHttpHandler,
} from '@modelcontextprotocol/server';
import type { Logger } from '../../foundation/ports/logger.js';
import type { ListenExtras } from './listen-extras.js';
import { type ListenRequest, listenRequestOf, tasksNotDeclared, weaveListenStream } from './modern-listen.js';
import type { McpSessionFactory, SessionContext } from './session-factory.js';

export interface ModernHttpOptions {
  createSession: McpSessionFactory;
  /** The same bound the 2025 wire reads a body under. */
  maxBodyBytes: number;
  /** Keep-alive comments on its event streams (`subscriptions/listen`) this often; 0 never. Default 15 s. */
  heartbeatMs?: number;
  /**
   * What listen streams carry beyond the catalog's tool changes (downstream prompt and resource
   * changes, resource updates, task status); absent: tool changes only.
   */
  listen?: ListenExtras;
  /** Who the gateway is, as a listen stream's graceful end names it. */
  serverInfo?: { name: string; version: string };
  log: Logger;
}

/** Thrown by the factory for a 2025 request (one instance: nothing reads its stack). */
const LEGACY = new Error('a 2025-era request: served by the sessions');

/**
 * The 2026-07-28 revision on the MCP endpoints: stateless, one fresh server per request from the
 * same session factory the 2025 sessions use (so both eras serve the same tools, resources and
 * prompts), disposed when the request's exchange ends.
 *
 * The SDK's handler owns the modern wire (the per-request `_meta` envelope, `server/discover`,
 * `Mcp-Method`/`Mcp-Name` checks, caching fields, `subscriptions/listen`); the 2025 sessions keep
 * serving everything it classifies as legacy (see `serve`).
 */
export class ModernHttpEndpoint {
  private readonly handler: McpHttpHandler;
  private readonly log: Logger;
  /** Whom each request in flight serves (the factory only sees the request), and its era once known. */
  private readonly requests = new WeakMap<Request, { context: SessionContext; legacy: boolean }>();

  constructor(private readonly options: ModernHttpOptions) {
    const log = options.log.child({ era: '2026' });
    this.log = log;
    this.handler = createMcpHandler(
      ({ era, requestInfo }) => {
        const entry = requestInfo ? this.requests.get(requestInfo) : undefined;
        // Only requests passed through `serve` reach the handler, and each was registered first.
        if (!entry) throw new Error('modern MCP request without a session context');
        if (era === 'legacy') {
          // The SDK's own classification, made once: the 2025 sessions serve this request.
          entry.legacy = true;
          throw LEGACY;
        }
        const { server, dispose, cancelled } = options.createSession(entry.context);
        if (cancelled) {
          // The server serves this one message: no request of its own is in flight to cancel.
          server.setNotificationHandler('notifications/cancelled', (notification) => {
            const requestId = notification.params?.requestId;
            if (requestId !== undefined) cancelled(requestId);
          });
        }
        const previous = server.onclose;
        server.onclose = () => {
          dispose();
          previous?.();
        };
        return server;
      },
      {
        // 2025 traffic reaches the factory as `era: 'legacy'`, which hands it back to the sessions
        // (`serve`); the SDK's stateless serving of it never runs.
        legacy: 'stateless',
        maxRequestBodySize: options.maxBodyBytes,
        ...(options.heartbeatMs === undefined ? {} : { keepAliveMs: options.heartbeatMs }),
        onerror: (error) => {
          if (error !== LEGACY) log.debug({ err: error.message }, 'modern mcp request rejected');
        },
      },
    );
  }

  /**
   * Serves a POST without a session id if it belongs to the 2026-07-28 wire; `undefined` when it is
   * a 2025 request (an `initialize`, a batch…), which the sessions serve. `body` is the request's
   * parsed JSON (the raw body has been read already). Everything the modern path answers — its own
   * validation errors included — is modern, so the two wires never both claim a request.
   */
  async serve(request: Request, body: unknown, context: SessionContext): Promise<Response | undefined> {
    // The SDK refuses a non-JSON body (415) before it classifies: a 2025 request keeps the answer of
    // its session transport (which checks Accept first), so that rare case is classified apart.
    if (
      !isJsonContentType(request.headers.get('content-type')) &&
      (await isLegacyRequest(request, body, { maxRequestBodySize: Number.MAX_SAFE_INTEGER }))
    )
      return undefined;
    const entry = { context, legacy: false };
    const listen = this.options.listen ? listenRequestOf(body) : undefined;
    this.requests.set(request, entry);
    try {
      const response = await this.handler.fetch(request, { parsedBody: listen ? listen.sdkBody : body });
      if (entry.legacy) return undefined;
      const stream = response.ok && response.headers.get('content-type')?.startsWith('text/event-stream');
      return listen && stream ? await this.extendListen(response, listen, context) : response;
    } finally {
      this.requests.delete(request);
    }
  }

  /** The SDK's listen stream with what the client asked beyond tool changes (`modern-listen.ts`). */
  private async extendListen(
    response: Response,
    listen: ListenRequest,
    context: SessionContext,
  ): Promise<Response> {
    const extras = this.options.listen;
    if (!extras) return response;
    if ((listen.filter.taskIds?.length ?? 0) > 0 && !listen.declaresTasks) {
      await response.body?.cancel().catch(() => {});
      return tasksNotDeclared(listen.id);
    }
    const queued: { method: string; params: Record<string, unknown> }[] = [];
    let sink = (method: string, params: Record<string, unknown>) => {
      queued.push({ method, params });
    };
    let opened: Awaited<ReturnType<ListenExtras['open']>>;
    try {
      opened = await extras.open(context, listen.filter, (method, params) => sink(method, params));
    } catch (error) {
      await response.body?.cancel().catch(() => {});
      this.log.warn({ err: (error as Error).message }, 'subscriptions/listen: notifications not opened');
      return Response.json(
        {
          jsonrpc: '2.0',
          id: listen.id,
          error: { code: -32603, message: 'Internal error: the subscription could not be opened' },
        },
        { status: 500 },
      );
    }
    return weaveListenStream(response, {
      request: listen,
      extras: opened,
      queued,
      attach: (write) => {
        sink = write;
      },
      serverInfo: this.options.serverInfo ?? { name: 'aperture', version: '0' },
    });
  }

  /** Tells every open `subscriptions/listen` stream that the tool list changed. */
  toolsChanged(): void {
    this.handler.notify.toolsChanged();
  }

  /** Ends the modern exchanges in flight (at shutdown). */
  close(): Promise<void> {
    return this.handler.close();
  }
}
