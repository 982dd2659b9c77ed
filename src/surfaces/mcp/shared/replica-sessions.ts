import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type { Context } from 'hono';
import { GatewayError, toGatewayError } from '../../../foundation/model/gateway-error.js';
import { jsonRpcErrorResponse } from '../../http/http-error.js';
import { LocalSessionRegistry } from '../local-session-registry.js';
import { type SessionContext, sessionOwner } from '../session-factory.js';
import {
  type HeldSession,
  refuseForeignSession,
  type SessionHost,
  type SessionRegistry,
} from '../session-registry.js';
import { routeAnswers, tagRequest } from './client-answers.js';
import type { SessionDirectory, SessionRecord } from './session-directory.js';
import { internalPost, recordAfter, recordOfInitialize, replayHandshake } from './session-handshake.js';
import type { SessionRelay } from './session-relay.js';

/** Where replicas meet for their 2025-era sessions. */
export interface SharedSessions {
  /** Every session's record, with the idle TTL (`http.sessionIdleMs`). */
  directory: SessionDirectory;
  /** Carries a client's answer to the replica whose server asked; absent: answers stay local. */
  relay?: SessionRelay;
}

/**
 * The part of `StreamableHttpSessions` that makes its sessions any replica's (ARCHITECTURE.md,
 * "Sessions across replicas"): the directory is asked on every request (owner, endpoint, deleted
 * or expired elsewhere, sliding TTL), a session held elsewhere is rebuilt here, what the client
 * changes in a session is recorded, and answers to another replica's requests are relayed there.
 */
export class ReplicaSessions<S extends HeldSession> implements SessionRegistry<S> {
  /** Sessions being rebuilt here: a second request for one waits for the same rebuild. */
  private readonly rebuilding = new Map<string, Promise<S>>();
  /** The checks of a session held here, when the directory cannot be asked. */
  private readonly local: LocalSessionRegistry<S>;

  constructor(
    private readonly shared: SharedSessions,
    private readonly host: SessionHost<S>,
  ) {
    this.local = new LocalSessionRegistry(host);
    shared.relay
      ?.listen((id, message) => this.deliver(id, message))
      .catch((error: unknown) =>
        host.log.error({ err: toGatewayError(error).message }, 'session relay not listening'),
      );
  }

  /** The name this replica's server requests carry (absent without a relay). */
  get replica(): string | undefined {
    return this.shared.relay?.replica;
  }

  /** `message` as sent to the client: a request names this replica, so its answer finds the way back. */
  outgoing(message: JSONRPCMessage): JSONRPCMessage {
    const replica = this.shared.relay?.replica;
    return replica === undefined ? message : tagRequest(message, replica);
  }

  /**
   * The session `id` if the request may use it, rebuilt here when this process does not hold it;
   * otherwise the error answer.
   */
  async owned(c: Context, id: string, context: SessionContext, endpoint: string): Promise<S | Response> {
    let record: SessionRecord | undefined;
    try {
      record = await this.shared.directory.touch(id);
    } catch (error) {
      // The directory is out of reach: a session held here goes on as a local one.
      this.host.log.warn({ err: toGatewayError(error).message }, 'session directory unavailable');
      if (this.host.held(id)) return this.local.check(c, id, context, endpoint);
      return jsonRpcErrorResponse(
        c,
        new GatewayError('backend_unavailable', 'Sessions cannot be looked up right now; retry shortly'),
      );
    }
    if (!record) {
      // Deleted on another replica, or expired: the copy held here ends too.
      this.host
        .held(id)
        ?.transport.close()
        .catch(() => {});
      return jsonRpcErrorResponse(c, new GatewayError('not_found', 'Session not found'));
    }
    if (record.endpoint !== endpoint)
      return jsonRpcErrorResponse(c, new GatewayError('not_found', 'Session not found'));
    if (record.owner !== sessionOwner(context.caller))
      return refuseForeignSession(c, id, context, this.host.log);
    const session =
      (await this.rebuilding.get(id)) ?? this.host.held(id) ?? (await this.rebuild(id, record, context));
    session.record = record;
    return session;
  }

  /**
   * Records a session this replica just opened, before the client can learn its id; undefined
   * once done, the error answer when the directory cannot take it (the session is closed: the
   * other replicas could not serve it).
   */
  async opened(
    c: Context,
    session: S,
    id: string,
    body: unknown,
    context: SessionContext,
    endpoint: string,
    json: boolean,
  ): Promise<Response | undefined> {
    const listing = session.listing?.();
    const record = recordOfInitialize(body, {
      owner: sessionOwner(context.caller),
      endpoint,
      json,
      toolset: context.caller.toolset,
      ...(listing ? { exposure: listing } : {}),
    });
    try {
      await this.shared.directory.put(id, record);
    } catch (error) {
      this.host.log.warn({ err: toGatewayError(error).message }, 'session directory unavailable');
      session.transport.close().catch(() => {});
      return jsonRpcErrorResponse(
        c,
        new GatewayError('backend_unavailable', 'Sessions cannot be opened right now; retry shortly'),
      );
    }
    session.record = record;
    return undefined;
  }

  /**
   * A session's client messages, before they reach its transport: what they change in the
   * session's record is stored (a rebuild restores it), and answers to requests another replica
   * asked go there. Returns what is left for this replica (undefined: nothing).
   */
  async changes(id: string, session: S, body: unknown): Promise<unknown> {
    const changed = session.record && recordAfter(session.record, body);
    if (changed) {
      session.record = changed;
      await this.shared.directory.put(id, changed).catch((error: unknown) => {
        this.host.log.warn({ err: toGatewayError(error).message }, 'session record not updated');
      });
    }
    const relay = this.shared.relay;
    if (!relay) return body;
    const { local, elsewhere } = routeAnswers(body, relay.replica);
    for (const { replica, message } of elsewhere) {
      relay.send(replica, id, message).catch((error: unknown) => {
        this.host.log.warn({ err: toGatewayError(error).message }, 'client answer not relayed');
      });
    }
    return local;
  }

  /** The session answered a long call: its TTL starts again (the call's request started it last). */
  answered(id: string): void {
    this.shared.directory.touch(id).catch(() => {});
  }

  /** DELETE: the session ends on every replica (the others find it gone on their next request). */
  async deleted(id: string): Promise<void> {
    await this.shared.directory.delete(id).catch((error: unknown) => {
      this.host.log.warn({ err: toGatewayError(error).message }, 'session not deleted from the directory');
    });
  }

  async close(): Promise<void> {
    await this.shared.relay?.close().catch(() => {});
  }

  /** A client's answer relayed from another replica, for a request this replica's server asked. */
  private deliver(id: string, message: unknown): void {
    const session = this.host.held(id);
    if (!session) return;
    session.lastSeen = Date.now();
    session.transport.handleRequest(internalPost(id), { parsedBody: message }).catch(() => {});
  }

  /** Rebuilds session `id` here, for `context` (its owner, checked by the caller). */
  private rebuild(id: string, record: SessionRecord, context: SessionContext): Promise<S> {
    const rebuilt = (async () => {
      // Auto's decision where the session opened is kept: its client was shown that list.
      const { transport, events, release } = await this.host.connect(
        record.exposure ? { ...context, keepListing: record.exposure } : context,
        record.endpoint,
        record.json,
        id,
      );
      // The handshake's answers are the gateway's own: no stream of the client's gets them.
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
      const session = this.host.held(id);
      if (!session) throw new Error(`session ${id} closed while it was rebuilt`);
      this.host.log.debug({ session: id }, 'mcp session rebuilt on this replica');
      return session;
    })();
    this.rebuilding.set(id, rebuilt);
    const done = () => this.rebuilding.delete(id);
    rebuilt.then(done, done);
    return rebuilt;
  }
}
