import { createMcpHandler, isLegacyRequest, type McpHttpHandler } from '@modelcontextprotocol/server';
import type { Logger } from '../../foundation/logger.js';
import type { McpSessionFactory, SessionContext } from './session-factory.js';

export interface ModernHttpOptions {
  createSession: McpSessionFactory;
  /** The same bound the 2025 wire reads a body under. */
  maxBodyBytes: number;
  /** Keep-alive comments on its event streams (`subscriptions/listen`) this often; 0 never. Default 15 s. */
  heartbeatMs?: number;
  log: Logger;
}

/**
 * The 2026-07-28 revision on the MCP endpoints: stateless, one fresh server per request from the
 * same session factory the 2025 sessions use (so both eras serve the same tools, resources and
 * prompts), disposed when the request's exchange ends.
 *
 * The SDK's handler owns the modern wire (the per-request `_meta` envelope, `server/discover`,
 * `Mcp-Method`/`Mcp-Name` checks, caching fields, `subscriptions/listen`); the 2025 sessions keep
 * serving everything it classifies as legacy (see `isModernRequest`).
 */
export class ModernHttpEndpoint {
  private readonly handler: McpHttpHandler;
  /** Whom each request in flight serves: the factory only sees the request. */
  private readonly contexts = new WeakMap<Request, SessionContext>();

  constructor(options: ModernHttpOptions) {
    const log = options.log.child({ era: '2026' });
    this.handler = createMcpHandler(
      ({ requestInfo }) => {
        const context = requestInfo ? this.contexts.get(requestInfo) : undefined;
        // Only requests passed through `handle` reach the handler, and each was registered first.
        if (!context) throw new Error('modern MCP request without a session context');
        const { server, dispose, cancelled } = options.createSession(context);
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
        // 2025 traffic never reaches this handler: the sessions serve it.
        legacy: 'reject',
        maxRequestBodySize: options.maxBodyBytes,
        ...(options.heartbeatMs === undefined ? {} : { keepAliveMs: options.heartbeatMs }),
        onerror: (error) => log.debug({ err: error.message }, 'modern mcp request rejected'),
      },
    );
  }

  /**
   * Whether a request belongs to the 2026-07-28 wire. `body` is the request's parsed JSON (the
   * raw body has been read already). Everything the modern path answers — its own validation
   * errors included — is modern, so the two wires never both claim a request.
   */
  async isModernRequest(request: Request, body: unknown): Promise<boolean> {
    return !(await isLegacyRequest(request, body, { maxRequestBodySize: Number.MAX_SAFE_INTEGER }));
  }

  /** Serves one modern request for `context`. */
  async handle(request: Request, body: unknown, context: SessionContext): Promise<Response> {
    this.contexts.set(request, context);
    try {
      return await this.handler.fetch(request, { parsedBody: body });
    } finally {
      this.contexts.delete(request);
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
