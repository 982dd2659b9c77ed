import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Context } from 'hono';
import { toGatewayError } from '../../foundation/gateway-error.js';
import type { Logger } from '../../foundation/logger.js';
import { jsonRpcError } from '../http/http-error.js';
import { readJsonBody } from '../http/read-json-body.js';
import type { McpSessionFactory } from './session-factory.js';

export interface StreamableHttpOptions {
  createSession: McpSessionFactory;
  maxBodyBytes: number;
  /** Sessions idle for longer are closed. Default 30 minutes. */
  idleMs?: number;
  log: Logger;
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  lastSeen: number;
}

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const SESSION_NOT_FOUND = -32001;

/**
 * MCP Streamable HTTP with sessions: an `initialize` without a session id opens a session with its
 * own server instance; later requests carry `mcp-session-id`. Unknown sessions get 404 (the client
 * then re-initialises, as the spec asks).
 */
export class StreamableHttpSessions {
  private readonly sessions = new Map<string, Session>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly idleMs: number;

  constructor(private readonly options: StreamableHttpOptions) {
    this.idleMs = options.idleMs ?? 30 * 60_000;
    this.sweeper = setInterval(() => this.sweep(), Math.min(this.idleMs, 60_000));
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  async handle(c: Context): Promise<Response> {
    const sessionId = c.req.header('mcp-session-id');
    if (c.req.method !== 'POST') {
      const session = sessionId ? this.sessions.get(sessionId) : undefined;
      if (!sessionId)
        return jsonRpcError(c, 400, INVALID_REQUEST, 'invalid_request', 'Missing mcp-session-id header');
      if (!session) return jsonRpcError(c, 404, SESSION_NOT_FOUND, 'not_found', 'Session not found');
      session.lastSeen = Date.now();
      return session.transport.handleRequest(c.req.raw);
    }
    let body: unknown;
    try {
      body = await readJsonBody(c, this.options.maxBodyBytes);
    } catch (error) {
      const failure = toGatewayError(error);
      const status = failure.code === 'payload_too_large' ? 413 : 400;
      const rpc = failure.code === 'payload_too_large' ? INVALID_REQUEST : PARSE_ERROR;
      return jsonRpcError(c, status, rpc, failure.code, failure.message);
    }
    if (sessionId) {
      const session = this.sessions.get(sessionId);
      if (!session) return jsonRpcError(c, 404, SESSION_NOT_FOUND, 'not_found', 'Session not found');
      session.lastSeen = Date.now();
      return session.transport.handleRequest(c.req.raw, { parsedBody: body });
    }
    if (!isInitializeRequest(body)) {
      return jsonRpcError(
        c,
        400,
        INVALID_REQUEST,
        'invalid_request',
        'No session: send an initialize request first, then the mcp-session-id it returns',
      );
    }
    return this.open(c.req.raw, body);
  }

  /** Closes every session (at shutdown). */
  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled(all.map((s) => s.transport.close()));
  }

  private async open(request: Request, body: unknown): Promise<Response> {
    const { server, dispose } = this.options.createSession();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.sessions.set(id, { transport, lastSeen: Date.now() });
        this.options.log.debug({ session: id }, 'mcp session opened');
      },
      onsessionclosed: (id) => {
        this.sessions.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
      dispose();
      server.close().catch(() => {});
    };
    await server.connect(transport);
    return transport.handleRequest(request, { parsedBody: body });
  }

  private sweep(): void {
    const cutoff = Date.now() - this.idleMs;
    for (const [id, session] of this.sessions) {
      if (session.lastSeen < cutoff) {
        this.sessions.delete(id);
        session.transport.close().catch(() => {});
        this.options.log.debug({ session: id }, 'idle mcp session closed');
      }
    }
  }
}
