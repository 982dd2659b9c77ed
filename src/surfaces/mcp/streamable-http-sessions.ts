import { randomUUID } from 'node:crypto';
import { isInitializeRequest, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import type { Context } from 'hono';
import { errorForSurface } from '../../foundation/model/error-hints.js';
import { GatewayError, toGatewayError } from '../../foundation/model/gateway-error.js';
import type { Logger } from '../../foundation/ports/logger.js';
import { jsonRpcErrorResponse } from '../http/http-error.js';
import { readJsonBody } from '../http/read-json-body.js';
import { answerAsJsonWhenAlone, FirstMessages, singleRequestId } from './answer-as-json.js';
import type { EventStore } from './event-store.js';
import { DEFAULT_MAX_SESSIONS_PER_IDENTITY, DEFAULT_SESSION_IDLE_MS } from './http-session-defaults.js';
import { InMemoryEventStore } from './in-memory-event-store.js';
import { LocalSessionRegistry } from './local-session-registry.js';
import type { ModernHttpEndpoint } from './modern-http.js';
import { OutgoingHookTransport } from './outgoing-hook-transport.js';
import { SessionEventStore } from './session-event-store.js';
import { type McpSessionFactory, type SessionContext, sessionOwner } from './session-factory.js';
import { refusedSession, SessionQuota } from './session-quota.js';
import type { ConnectedSession, HeldSession, SessionHost, SessionRegistry } from './session-registry.js';
import { ReplicaSessions, type SharedSessions } from './shared/replica-sessions.js';

export type { SharedSessions } from './shared/replica-sessions.js';

export interface StreamableHttpOptions {
  createSession: McpSessionFactory;
  maxBodyBytes: number;
  /** Sessions idle for longer are closed. Default 30 minutes. */
  idleMs?: number;
  /** Keep-alive comments on the sessions' event streams this often; 0 never. Default 15 s (the SDK's). */
  heartbeatMs?: number;
  /**
   * Keeps the events of the sessions' SSE streams so a client can resume one (`Last-Event-ID`);
   * default an {@link InMemoryEventStore}.
   */
  eventStore?: EventStore;
  /** Serves the 2026-07-28 requests (stateless) beside the sessions; absent: 2025 only. */
  modern?: ModernHttpEndpoint;
  /**
   * Bounds the sessions each identity opens here (`http.maxSessionsPerIdentity`), shared with the
   * legacy SSE sessions; default a quota of its own with `DEFAULT_MAX_SESSIONS_PER_IDENTITY`.
   */
  quota?: SessionQuota;
  /**
   * Sessions shared with other replicas (give them a shared `eventStore` too): any replica serves
   * any session, rebuilding it on a miss. Absent: this process's sessions only.
   */
  shared?: SharedSessions;
  log: Logger;
}

interface Session extends HeldSession {
  /** Ids of the client's requests not answered yet: a session with a call in flight is not idle. */
  pending: Set<string | number>;
  /** Opened by a client that accepts only `application/json`: answers are JSON bodies, never SSE. */
  json: boolean;
  /** Whether the answer to a request is the first message of its exchange (`answerAsJsonWhenAlone`). */
  firsts: FirstMessages;
}

/**
 * MCP Streamable HTTP with sessions (the 2025 revisions; 2026-07-28 requests, which have no
 * session, go to the `modern` endpoint): an `initialize` without a session id opens a session with its
 * own server instance; later requests carry `mcp-session-id`. Unknown sessions get 404 (the client
 * then re-initialises, as the spec asks). A session belongs to the caller that initialised it and
 * to its endpoint: another identity's request on it gets 403 `forbidden`, a request on another
 * endpoint 404. With `shared`, a session this process does not hold but the directory knows is
 * rebuilt here (ARCHITECTURE.md, "Sessions across replicas").
 */
export class StreamableHttpSessions {
  private readonly sessions = new Map<string, Session>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly idleMs: number;
  private readonly eventStore: EventStore;
  private readonly quota: SessionQuota;
  /**
   * Where sessions are known: this process's (`LocalSessionRegistry`), or with `shared` every
   * replica's (`ReplicaSessions`).
   */
  private readonly registry: SessionRegistry<Session>;

  constructor(private readonly options: StreamableHttpOptions) {
    this.idleMs = options.idleMs ?? DEFAULT_SESSION_IDLE_MS;
    this.eventStore = options.eventStore ?? new InMemoryEventStore();
    this.quota = options.quota ?? new SessionQuota({ maxPerOwner: DEFAULT_MAX_SESSIONS_PER_IDENTITY });
    this.sweeper = setInterval(() => this.sweep(), Math.min(this.idleMs, 60_000));
    this.sweeper.unref();
    const host: SessionHost<Session> = {
      held: (id) => this.sessions.get(id),
      connect: (context, endpoint, json, id) => this.connect(context, endpoint, json, id),
      log: options.log,
    };
    this.registry = options.shared
      ? new ReplicaSessions(options.shared, host)
      : new LocalSessionRegistry(host);
  }

  get size(): number {
    return this.sessions.size;
  }

  /**
   * Serves one request on `endpoint` for `context` (the caller and the scope resolved for it;
   * the scope is used when the request opens a session).
   */
  async handle(c: Context, context: SessionContext, endpoint = '/mcp'): Promise<Response> {
    const sessionId = c.req.header('mcp-session-id');
    if (c.req.method !== 'POST') {
      if (!sessionId)
        return jsonRpcErrorResponse(c, new GatewayError('invalid_request', 'Missing mcp-session-id header'));
      const session = await this.registry.owned(c, sessionId, context, endpoint);
      if (session instanceof Response) return session;
      session.lastSeen = Date.now();
      return session.transport.handleRequest(c.req.raw);
    }
    let body: unknown;
    try {
      body = await readJsonBody(c, this.options.maxBodyBytes);
    } catch (error) {
      return jsonRpcErrorResponse(c, errorForSurface(toGatewayError(error), 'mcp'));
    }
    // A 2026-07-28 request carries its whole context itself: no session, a server of its own.
    const modern = this.options.modern;
    if (!sessionId && modern) {
      const answered = await modern.serve(c.req.raw, body, context);
      if (answered) return answered;
    }
    if (sessionId) {
      const session = await this.registry.owned(c, sessionId, context, endpoint);
      if (session instanceof Response) return session;
      session.lastSeen = Date.now();
      body = await this.registry.changes(sessionId, session, body);
      if (body === undefined) return new Response(null, { status: 202 });
      for (const id of requestIds(body)) session.pending.add(id);
      // A cancelled request is never answered: it is no longer pending.
      for (const id of cancelledIds(body)) session.pending.delete(id);
      const request =
        session.json && acceptsJsonOnly(c.req.raw) ? asEventStreamAccepting(c.req.raw, body) : c.req.raw;
      // A session opened as JSON-only answers in JSON bodies already.
      const requestId = session.json ? undefined : singleRequestId(body);
      if (requestId === undefined) return session.transport.handleRequest(request, { parsedBody: body });
      const answer = session.firsts.expect(requestId);
      try {
        return await answerAsJsonWhenAlone(
          await session.transport.handleRequest(request, { parsedBody: body }),
          answer,
        );
      } finally {
        session.firsts.forget(requestId);
      }
    }
    if (!isInitializeRequest(body)) {
      return jsonRpcErrorResponse(
        c,
        new GatewayError(
          'invalid_request',
          'No session: send an initialize request first, then the mcp-session-id it returns',
        ),
      );
    }
    return this.open(c, body, context, endpoint);
  }

  /** Closes every session (at shutdown). */
  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    await this.registry.close();
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled(all.map((s) => s.transport.close()));
  }

  private async open(
    c: Context,
    body: unknown,
    context: SessionContext,
    endpoint: string,
  ): Promise<Response> {
    const request = c.req.raw;
    // A client that accepts only JSON (no event streams) gets a session answering in JSON bodies:
    // the SDK's transport insists on both media types, so its requests are shown to it with both.
    const json = acceptsJsonOnly(request);
    // Counted before the session server is made, so a burst of initializes cannot slip past.
    const owner = sessionOwner(context.caller);
    let releaseQuota: () => void;
    try {
      releaseQuota = this.quota.take(owner, () => this.untilOneIdles(owner));
    } catch (error) {
      return refusedSession(c, toGatewayError(error), this.options.log);
    }
    let connected: ConnectedSession;
    try {
      connected = await this.connect(context, endpoint, json, randomUUID(), releaseQuota);
    } catch (error) {
      releaseQuota();
      throw error;
    }
    const { transport, release } = connected;
    try {
      const response = await transport.handleRequest(json ? asEventStreamAccepting(request, body) : request, {
        parsedBody: body,
      });
      const session = transport.sessionId ? this.sessions.get(transport.sessionId) : undefined;
      if (!session) {
        release();
        transport.close().catch(() => {});
      } else {
        // Known to every replica before the client can learn the session id from this answer.
        const refused = await this.registry.opened(
          c,
          session,
          transport.sessionId as string,
          body,
          context,
          endpoint,
          json,
        );
        if (refused) return refused;
      }
      return response;
    } catch (error) {
      release();
      transport.close().catch(() => {});
      throw error;
    }
  }

  /**
   * A session server for `context` connected to a fresh transport whose session id will be `id`;
   * the session is registered once the transport takes an `initialize`. `release` ends it.
   */
  private async connect(
    context: SessionContext,
    endpoint: string,
    json: boolean,
    id: string,
    onRelease?: () => void,
  ): Promise<ConnectedSession> {
    const { server, dispose, listing } = this.options.createSession(context);
    const owner = sessionOwner(context.caller);
    const events = new SessionEventStore(this.eventStore, id);
    const registry = this.registry;
    let released = false;
    // Every way out releases the session server exactly once: the transport closing (DELETE,
    // idle expiry, shutdown), and an initialize the transport refused (406, 415, 400) — which
    // never closes the transport, so without this each refusal would leak a server and its
    // catalog listener.
    const release = () => {
      if (released) return;
      released = true;
      if (transport.sessionId && this.sessions.get(transport.sessionId)?.transport === transport)
        this.sessions.delete(transport.sessionId);
      onRelease?.();
      dispose();
      server.close().catch(() => {});
    };
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      enableJsonResponse: json,
      // A client that lost a stream resumes it with Last-Event-ID (the SDK replays from the store);
      // long-lived streams get the SDK's keep-alive comments.
      eventStore: events,
      ...(this.options.heartbeatMs === undefined ? {} : { keepAliveMs: this.options.heartbeatMs }),
      onsessioninitialized: (id) => {
        const session: Session = {
          transport,
          lastSeen: Date.now(),
          owner,
          endpoint,
          pending: new Set(),
          json,
          firsts: new FirstMessages(),
          ...(listing ? { listing } : {}),
        };
        this.sessions.set(id, session);
        opened = session;
        this.options.log.debug({ session: id }, 'mcp session opened');
      },
      onsessionclosed: async (id) => {
        this.sessions.delete(id);
        // DELETE ends the session on every replica: the others find it gone on their next request.
        await registry.deleted(id);
      },
    });
    /** The session, once the transport took its `initialize`: until then messages go out as sent. */
    let opened: Session | undefined;
    // Answers clear the pending requests (and count as activity).
    const outgoing = new OutgoingHookTransport(transport, (message, options, send) => {
      const session = opened;
      if (!session) return send(message);
      if (session.firsts.sent(message as { id?: unknown; method?: unknown }, options?.relatedRequestId))
        events.unread(message);
      const answered = (message as { id?: string | number; method?: unknown }).id;
      if (answered !== undefined && !('method' in message)) {
        session.pending.delete(answered);
        // A call longer than half the idle TTL must not find its session expired elsewhere.
        if (Date.now() - session.lastSeen > this.idleMs / 2) registry.answered(id);
        session.lastSeen = Date.now();
        return send(message);
      }
      // The client's answer to a request may land on another replica: it names this one.
      return send(registry.outgoing(message));
    });
    outgoing.onclose = release;
    try {
      await server.connect(outgoing);
    } catch (error) {
      release();
      throw error;
    }
    return { transport, events, release };
  }

  /** How long until one of `owner`'s idle sessions here expires (what a refused client waits). */
  private untilOneIdles(owner: string): number {
    let soonest = this.idleMs;
    for (const session of this.sessions.values()) {
      if (session.owner !== owner || session.pending.size > 0) continue;
      soonest = Math.min(soonest, session.lastSeen + this.idleMs - Date.now());
    }
    return soonest;
  }

  private sweep(): void {
    const cutoff = Date.now() - this.idleMs;
    for (const [id, session] of this.sessions) {
      // A client waiting for a long call is not gone; the expiry counts from the call's answer.
      if (session.lastSeen < cutoff && session.pending.size === 0) {
        this.sessions.delete(id);
        session.transport.close().catch(() => {});
        this.options.log.debug({ session: id }, 'idle mcp session closed');
      }
    }
  }
}

/** True when a request accepts JSON answers but not event streams. */
function acceptsJsonOnly(request: Request): boolean {
  const accept = request.headers.get('accept') ?? '';
  return accept.includes('application/json') && !accept.includes('text/event-stream');
}

/** The request with an Accept header naming both media types (its body is passed parsed). */
function asEventStreamAccepting(request: Request, body: unknown): Request {
  const headers = new Headers(request.headers);
  headers.set('accept', 'application/json, text/event-stream');
  return new Request(request.url, { method: request.method, headers, body: JSON.stringify(body) });
}

/** The ids of the JSON-RPC requests in a body (one message or a batch). */
function requestIds(body: unknown): (string | number)[] {
  const messages = Array.isArray(body) ? body : [body];
  const ids: (string | number)[] = [];
  for (const message of messages) {
    if (typeof message !== 'object' || message === null) continue;
    const { id, method } = message as { id?: unknown; method?: unknown };
    if (typeof method === 'string' && (typeof id === 'string' || typeof id === 'number')) ids.push(id);
  }
  return ids;
}

/** The request ids a body's `notifications/cancelled` messages cancel. */
function cancelledIds(body: unknown): (string | number)[] {
  const messages = Array.isArray(body) ? body : [body];
  const ids: (string | number)[] = [];
  for (const message of messages) {
    const { method, params } = (message ?? {}) as { method?: unknown; params?: { requestId?: unknown } };
    const id = params?.requestId;
    if (method === 'notifications/cancelled' && (typeof id === 'string' || typeof id === 'number'))
      ids.push(id);
  }
  return ids;
}
