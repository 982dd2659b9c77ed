import {
  createMcpHandler,
  isJsonContentType,
  isLegacyRequest,
  type McpHttpHandler,
} from '@modelcontextprotocol/server';
import type { Logger } from '../../foundation/ports/logger.js';
import type { McpSessionFactory, SessionContext } from './session-factory.js';

export interface ModernHttpOptions {
  createSession: McpSessionFactory;
  /** The same bound the 2025 wire reads a body under. */
  maxBodyBytes: number;
  /** Keep-alive comments on its event streams (`subscriptions/listen`) this often; 0 never. Default 15 s. */
  heartbeatMs?: number;
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
  /** Whom each request in flight serves (the factory only sees the request), and its era once known. */
  private readonly requests = new WeakMap<Request, { context: SessionContext; legacy: boolean }>();

  constructor(options: ModernHttpOptions) {
    const log = options.log.child({ era: '2026' });
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
    this.requests.set(request, entry);
    try {
      const response = await this.handler.fetch(request, { parsedBody: body });
      return entry.legacy ? undefined : response;
    } finally {
      this.requests.delete(request);
    }
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
