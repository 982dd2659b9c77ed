import { randomUUID } from 'node:crypto';
import { isInitializeRequest, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import type { Context } from 'hono';
import { errorForSurface } from '../../foundation/error-hints.js';
import { GatewayError, toGatewayError } from '../../foundation/gateway-error.js';
import type { Logger } from '../../foundation/logger.js';
import { jsonRpcErrorResponse } from '../http/http-error.js';
import { readJsonBody } from '../http/read-json-body.js';
import type { EventStore } from './event-store.js';
import { InMemoryEventStore } from './in-memory-event-store.js';
import type { ModernHttpEndpoint } from './modern-http.js';
import { SessionEventStore } from './session-event-store.js';
import { type McpSessionFactory, type SessionContext, sessionOwner } from './session-factory.js';
import { routeAnswers, tagRequest } from './shared/client-answers.js';
import type { SessionDirectory, SessionRecord } from './shared/session-directory.js';
import {
  internalPost,
  recordAfter,
  recordOfInitialize,
  replayHandshake,
} from './shared/session-handshake.js';
import type { SessionRelay } from './shared/session-relay.js';

export interface StreamableHttpOptions {
  createSession: McpSessionFactory;
  maxBodyBytes: number;
  /** Sessions idle for longer are closed. Default 30 minutes. */
  idleMs?: number;
  /**
   * Keeps the events of the sessions' SSE streams so a client can resume one (`Last-Event-ID`);
   * default an {@link InMemoryEventStore}.
   */
  eventStore?: EventStore;
  /** Serves the 2026-07-28 requests (stateless) beside the sessions; absent: 2025 only. */
  modern?: ModernHttpEndpoint;
  /**
   * Sessions shared with other replicas (give them a shared `eventStore` too): any replica serves
   * any session, rebuilding it on a miss. Absent: this process's sessions only.
   */
  shared?: SharedSessions;
  log: Logger;
}

/** Where replicas meet for their 2025-era sessions. */
export interface SharedSessions {
  /** Every session's record, with the idle TTL (`http.sessionIdleMs`). */
  directory: SessionDirectory;
  /** Carries a client's answer to the replica whose server asked; absent: answers stay local. */
  relay?: SessionRelay;
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  lastSeen: number;
  /** Ids of the client's requests not answered yet: a session with a call in flight is not idle. */
  pending: Set<string | number>;
  /** `sessionOwner` of the caller that initialised it. */
  owner: string;
  /** The endpoint it was opened on (`/mcp`, `/mcp/{toolset}`); it is unknown on any other. */
  endpoint: string;
  /** Opened by a client that accepts only `application/json`: answers are JSON bodies, never SSE. */
  json: boolean;
  /** Shared sessions: the directory's record as last read or written here. */
  record?: SessionRecord;
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
  private readonly shared: SharedSessions | undefined;
  /** Shared sessions being rebuilt here: a second request for one waits for the same rebuild. */
  private readonly rebuilding = new Map<string, Promise<Session>>();

  constructor(private readonly options: StreamableHttpOptions) {
    this.idleMs = options.idleMs ?? 30 * 60_000;
    this.eventStore = options.eventStore ?? new InMemoryEventStore();
    this.shared = options.shared;
    this.sweeper = setInterval(() => this.sweep(), Math.min(this.idleMs, 60_000));
    this.sweeper.unref();
    this.shared?.relay
      ?.listen((id, message) => this.deliver(id, message))
      .catch((error: unknown) =>
        options.log.error({ err: toGatewayError(error).message }, 'session relay not listening'),
      );
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
      const session = this.shared
        ? await this.sharedOwned(c, sessionId, context, endpoint)
        : this.owned(c, sessionId, context, endpoint);
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
    if (!sessionId && modern && (await modern.isModernRequest(c.req.raw, body))) {
      return modern.handle(c.req.raw, body, context);
    }
    if (sessionId) {
      const session = this.shared
        ? await this.sharedOwned(c, sessionId, context, endpoint)
        : this.owned(c, sessionId, context, endpoint);
      if (session instanceof Response) return session;
      session.lastSeen = Date.now();
      if (this.shared) {
        body = await this.shareChanges(sessionId, session, body);
        if (body === undefined) return new Response(null, { status: 202 });
      }
      for (const id of requestIds(body)) session.pending.add(id);
      // A cancelled request is never answered: it is no longer pending.
      for (const id of cancelledIds(body)) session.pending.delete(id);
      const request =
        session.json && acceptsJsonOnly(c.req.raw) ? asEventStreamAccepting(c.req.raw, body) : c.req.raw;
      return session.transport.handleRequest(request, { parsedBody: body });
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

  /** The session `sessionId` if the request may use it; otherwise the error answer. */
  private owned(
    c: Context,
    sessionId: string,
    context: SessionContext,
    endpoint: string,
  ): Session | Response {
    const session = this.sessions.get(sessionId);
    if (!session || session.endpoint !== endpoint)
      return jsonRpcErrorResponse(c, new GatewayError('not_found', 'Session not found'));
    if (session.owner !== sessionOwner(context.caller)) return this.refuse(c, sessionId, context);
    return session;
  }

  /**
   * The shared session `sessionId` if the request may use it, rebuilt here when this process does
   * not hold it; otherwise the error answer. The directory is asked every time: its record is the
   * truth on owner and endpoint, a session deleted or expired elsewhere ends here too, and the
   * read slides its TTL.
   */
  private async sharedOwned(
    c: Context,
    sessionId: string,
    context: SessionContext,
    endpoint: string,
  ): Promise<Session | Response> {
    const shared = this.shared as SharedSessions;
    let record: SessionRecord | undefined;
    try {
      record = await shared.directory.touch(sessionId);
    } catch (error) {
      // The directory is out of reach: a session held here goes on as a local one.
      this.options.log.warn({ err: toGatewayError(error).message }, 'session directory unavailable');
      if (this.sessions.has(sessionId)) return this.owned(c, sessionId, context, endpoint);
      return jsonRpcErrorResponse(
        c,
        new GatewayError('backend_unavailable', 'Sessions cannot be looked up right now; retry shortly'),
      );
    }
    if (!record) {
      // Deleted on another replica, or expired: the copy held here ends too.
      this.sessions
        .get(sessionId)
        ?.transport.close()
        .catch(() => {});
      return jsonRpcErrorResponse(c, new GatewayError('not_found', 'Session not found'));
    }
    if (record.endpoint !== endpoint)
      return jsonRpcErrorResponse(c, new GatewayError('not_found', 'Session not found'));
    if (record.owner !== sessionOwner(context.caller)) return this.refuse(c, sessionId, context);
    const session =
      (await this.rebuilding.get(sessionId)) ??
      this.sessions.get(sessionId) ??
      (await this.rebuild(sessionId, record, context));
    session.record = record;
    return session;
  }

  /** The refusal of a request on a session opened by another identity. */
  private refuse(c: Context, sessionId: string, context: SessionContext): Response {
    this.options.log.warn(
      { session: sessionId, identity: context.caller.identity },
      'request on a session opened by another identity refused',
    );
    return jsonRpcErrorResponse(c, new GatewayError('forbidden', 'This session belongs to another identity'));
  }

  /**
   * A shared session's client messages, before they reach its transport: what they change in the
   * session's record is stored (a rebuild restores it), and answers to requests another replica
   * asked go there. Returns what is left for this replica (undefined: nothing).
   */
  private async shareChanges(sessionId: string, session: Session, body: unknown): Promise<unknown> {
    const shared = this.shared as SharedSessions;
    const changed = session.record && recordAfter(session.record, body);
    if (changed) {
      session.record = changed;
      await shared.directory.put(sessionId, changed).catch((error: unknown) => {
        this.options.log.warn({ err: toGatewayError(error).message }, 'session record not updated');
      });
    }
    const relay = shared.relay;
    if (!relay) return body;
    const { local, elsewhere } = routeAnswers(body, relay.replica);
    for (const { replica, message } of elsewhere) {
      relay.send(replica, sessionId, message).catch((error: unknown) => {
        this.options.log.warn({ err: toGatewayError(error).message }, 'client answer not relayed');
      });
    }
    return local;
  }

  /** A client's answer relayed from another replica, for a request this replica's server asked. */
  private deliver(sessionId: string, message: unknown): void {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    session.lastSeen = Date.now();
    session.transport.handleRequest(internalPost(sessionId), { parsedBody: message }).catch(() => {});
  }

  /** Rebuilds the shared session `id` here, for `context` (its owner, checked by the caller). */
  private rebuild(id: string, record: SessionRecord, context: SessionContext): Promise<Session> {
    const rebuilt = (async () => {
      const { transport, events, release } = await this.connect(context, record.endpoint, record.json, id);
      events.muted = true;
      try {
        await replayHandshake(transport, id, record);
      } catch (error) {
        release();
        transport.close().catch(() => {});
        throw error;
      } finally {
        events.muted = false;
      }
      const session = this.sessions.get(id);
      if (!session) throw new Error(`session ${id} closed while it was rebuilt`);
      this.options.log.debug({ session: id }, 'mcp session rebuilt on this replica');
      return session;
    })();
    this.rebuilding.set(id, rebuilt);
    const done = () => this.rebuilding.delete(id);
    rebuilt.then(done, done);
    return rebuilt;
  }

  /** Closes every session (at shutdown). */
  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    await this.shared?.relay?.close().catch(() => {});
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
    const { transport, release } = await this.connect(context, endpoint, json, randomUUID());
    try {
      const response = await transport.handleRequest(json ? asEventStreamAccepting(request, body) : request, {
        parsedBody: body,
      });
      const session = transport.sessionId ? this.sessions.get(transport.sessionId) : undefined;
      if (!session) {
        release();
        transport.close().catch(() => {});
      } else if (this.shared) {
        // Known to every replica before the client can learn the session id from this answer.
        const record = recordOfInitialize(body, {
          owner: session.owner,
          endpoint,
          json,
          toolset: context.caller.toolset,
        });
        try {
          await this.shared.directory.put(transport.sessionId as string, record);
        } catch (error) {
          // A session the other replicas cannot know would break on the client's next request.
          this.options.log.warn({ err: toGatewayError(error).message }, 'session directory unavailable');
          transport.close().catch(() => {});
          return jsonRpcErrorResponse(
            c,
            new GatewayError('backend_unavailable', 'Sessions cannot be opened right now; retry shortly'),
          );
        }
        session.record = record;
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
  ): Promise<{
    transport: WebStandardStreamableHTTPServerTransport;
    events: SessionEventStore;
    release: () => void;
  }> {
    const { server, dispose } = this.options.createSession(context);
    const owner = sessionOwner(context.caller);
    const events = new SessionEventStore(this.eventStore, id);
    const shared = this.shared;
    const tag = shared?.relay?.replica;
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
      dispose();
      server.close().catch(() => {});
    };
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      enableJsonResponse: json,
      // A client that lost a stream resumes it with Last-Event-ID (the SDK replays from the store);
      // long-lived streams get the SDK's keep-alive comments (every 15 s).
      eventStore: events,
      onsessioninitialized: (id) => {
        const session: Session = {
          transport,
          lastSeen: Date.now(),
          owner,
          endpoint,
          pending: new Set(),
          json,
        };
        this.sessions.set(id, session);
        // Answers clear the pending requests (and count as activity).
        const send = transport.send.bind(transport);
        transport.send = async (message, options) => {
          const answered = (message as { id?: string | number; method?: unknown }).id;
          if (answered !== undefined && !('method' in message)) {
            session.pending.delete(answered);
            session.lastSeen = Date.now();
            // A call longer than the idle TTL must not find its session expired when it ends.
            if (shared) shared.directory.touch(id).catch(() => {});
          } else if (tag !== undefined) {
            // The client's answer to this request may land on another replica: it names this one.
            return send(tagRequest(message, tag), options);
          }
          return send(message, options);
        };
        this.options.log.debug({ session: id }, 'mcp session opened');
      },
      onsessionclosed: async (id) => {
        this.sessions.delete(id);
        // DELETE ends the session on every replica: the others find it gone on their next request.
        await shared?.directory.delete(id).catch((error: unknown) => {
          this.options.log.warn(
            { err: toGatewayError(error).message },
            'session not deleted from the directory',
          );
        });
      },
    });
    transport.onclose = release;
    try {
      await server.connect(transport);
    } catch (error) {
      release();
      throw error;
    }
    return { transport, events, release };
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
