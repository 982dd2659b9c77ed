import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type { SSEServerTransport } from '@modelcontextprotocol/server-legacy/sse';
import type { Context } from 'hono';
import { errorForSurface } from '../../foundation/model/error-hints.js';
import { GatewayError, toGatewayError } from '../../foundation/model/gateway-error.js';
import type { Logger } from '../../foundation/ports/logger.js';
import type { CallerContext } from '../../foundation/ports/tool-backend.js';
import { jsonRpcErrorResponse } from '../http/http-error.js';
import { readJsonBody } from '../http/read-json-body.js';
import { DEFAULT_HEARTBEAT_MS, DEFAULT_MAX_SESSIONS_PER_IDENTITY } from './http-session-defaults.js';
import { type McpSessionFactory, type SessionContext, sessionOwner } from './session-factory.js';
import { refusedSession, SessionQuota } from './session-quota.js';

export interface LegacySseOptions {
  createSession: McpSessionFactory;
  /** Path clients POST messages to (announced in the `endpoint` event). */
  messagesPath: string;
  maxBodyBytes: number;
  /** A keep-alive comment on each stream this often (the SDK sends none here); 0 never. Default 15 s. */
  heartbeatMs?: number;
  /** Bounds the sessions each identity opens (shared with the Streamable HTTP sessions). */
  quota?: SessionQuota;
  log: Logger;
}

/**
 * The deprecated HTTP+SSE transport (protocol 2024-11-05) for older clients: `GET /sse` opens the
 * event stream, `POST /messages?sessionId=…` delivers client messages — only from the caller that
 * opened the stream (403 `forbidden` for another identity).
 */
export class LegacySseSessions {
  private readonly sessions = new Map<string, { transport: SSEServerTransport; owner: string }>();

  private readonly quota: SessionQuota;

  constructor(private readonly options: LegacySseOptions) {
    this.quota = options.quota ?? new SessionQuota({ maxPerOwner: DEFAULT_MAX_SESSIONS_PER_IDENTITY });
  }

  async open(c: Context<{ Bindings: HttpBindings }>, context: SessionContext): Promise<Response> {
    // Loaded on the first stream: the legacy transport brings raw-body and iconv-lite, which no
    // other route needs (start-up time).
    const { SSEServerTransport } = await import('@modelcontextprotocol/server-legacy/sse');
    const owner = sessionOwner(context.caller);
    let releaseQuota: () => void;
    try {
      // A stream lives as long as its client keeps it: no idle expiry to wait for.
      releaseQuota = this.quota.take(owner);
    } catch (error) {
      return refusedSession(c, toGatewayError(error), this.options.log);
    }
    let made: ReturnType<McpSessionFactory>;
    try {
      made = this.options.createSession(context);
    } catch (error) {
      releaseQuota();
      throw error;
    }
    const { server, dispose } = made;
    const transport = new SSEServerTransport(this.options.messagesPath, c.env.outgoing);
    this.sessions.set(transport.sessionId, { transport, owner });
    let released = false;
    // The stream ending (the client left), the transport closing and a failed start all release
    // the session server, once.
    const release = () => {
      if (released) return;
      released = true;
      this.sessions.delete(transport.sessionId);
      releaseQuota();
      dispose();
      server.close().catch(() => {});
    };
    transport.onclose = release;
    const outgoing = c.env.outgoing;
    const heartbeatMs = this.options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    // A quiet stream must not look dead to a proxy or a client: an SSE comment, ignored by readers.
    const heartbeat =
      heartbeatMs > 0
        ? setInterval(() => {
            if (outgoing.headersSent && !outgoing.writableEnded) outgoing.write(': keepalive\n\n');
          }, heartbeatMs).unref()
        : undefined;
    outgoing.on('close', () => {
      clearInterval(heartbeat);
      release();
      transport.close().catch(() => {});
    });
    try {
      await server.connect(transport);
    } catch (error) {
      clearInterval(heartbeat);
      release();
      throw error;
    }
    return RESPONSE_ALREADY_SENT;
  }

  async post(c: Context, caller: CallerContext): Promise<Response> {
    const sessionId = c.req.query('sessionId');
    const session = sessionId ? this.sessions.get(sessionId) : undefined;
    if (!session) return jsonRpcErrorResponse(c, new GatewayError('not_found', 'Session not found'));
    if (session.owner !== sessionOwner(caller)) {
      this.options.log.warn(
        { session: sessionId, identity: caller.identity },
        "message for another identity's session refused",
      );
      return jsonRpcErrorResponse(
        c,
        new GatewayError('forbidden', 'This session belongs to another identity'),
      );
    }
    const { transport } = session;
    let body: unknown;
    try {
      body = await readJsonBody(c, this.options.maxBodyBytes);
    } catch (error) {
      return jsonRpcErrorResponse(c, errorForSurface(toGatewayError(error), 'mcp'));
    }
    try {
      await transport.handleMessage(body as JSONRPCMessage);
    } catch (error) {
      return jsonRpcErrorResponse(
        c,
        new GatewayError('invalid_request', `Invalid message: ${(error as Error).message}`),
      );
    }
    return c.text('Accepted', 202);
  }

  async closeAll(): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled(all.map((s) => s.transport.close()));
  }
}
