import type { JSONRPCMessage, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import type { Context } from 'hono';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { Logger } from '../../foundation/ports/logger.js';
import { jsonRpcErrorResponse } from '../http/http-error.js';
import type { AutoListing } from './exposure.js';
import type { SessionEventStore } from './session-event-store.js';
import type { SessionContext } from './session-factory.js';
import type { SessionRecord } from './shared/session-directory.js';

/** What this process holds of a 2025-era session (its `StreamableHttpSessions` entry). */
export interface HeldSession {
  transport: WebStandardStreamableHTTPServerTransport;
  lastSeen: number;
  /** `sessionOwner` of the caller that initialised it. */
  owner: string;
  /** The endpoint it was opened on (`/mcp`, `/mcp/{toolset}`); it is unknown on any other. */
  endpoint: string;
  /** Shared sessions: the directory's record as last read or written here. */
  record?: SessionRecord;
  /** What exposure `auto` lists for the session now (its record keeps it); absent in another mode. */
  listing?: () => AutoListing | undefined;
}

/** A session server on a fresh transport: its stream events, and `release` to end it. */
export interface ConnectedSession {
  transport: WebStandardStreamableHTTPServerTransport;
  events: SessionEventStore;
  release: () => void;
}

/** What a {@link SessionRegistry} needs of the sessions this process holds. */
export interface SessionHost<S extends HeldSession> {
  held(id: string): S | undefined;
  /**
   * A session server for `context` on a fresh transport whose session id will be `id`; the session
   * is held once the transport takes an `initialize`.
   */
  connect(context: SessionContext, endpoint: string, json: boolean, id: string): Promise<ConnectedSession>;
  log: Logger;
}

/**
 * Where `StreamableHttpSessions` learns whether a request may use a session, and tells what
 * happens to its sessions (the port between the HTTP handling and where sessions are known). The
 * local registry knows the sessions this process holds; the replicated one (`ReplicaSessions`)
 * knows every replica's through a shared directory, rebuilds a session held elsewhere, and relays
 * answers between replicas. Both run through `session-registry.contract.ts`.
 */
export interface SessionRegistry<S extends HeldSession> {
  /**
   * The session `id` if this request may use it (rebuilt here when another replica opened it);
   * otherwise the error answer: 404 unknown (or on another endpoint), 403 another identity's.
   */
  owned(c: Context, id: string, context: SessionContext, endpoint: string): Promise<S | Response>;
  /**
   * A session this process just opened, before the client can learn its id: undefined once it is
   * known, the error answer when it cannot be (the session is then closed).
   */
  opened(
    c: Context,
    session: S,
    id: string,
    body: unknown,
    context: SessionContext,
    endpoint: string,
    json: boolean,
  ): Promise<Response | undefined>;
  /**
   * A session's client messages before they reach its transport; returns what is left for this
   * process (undefined: nothing; answers to another replica's requests went there).
   */
  changes(id: string, session: S, body: unknown): Promise<unknown>;
  /** A server-to-client message as it goes out (a replica names itself on its requests). */
  outgoing(message: JSONRPCMessage): JSONRPCMessage;
  /** The session answered a long call: it counts as used now. */
  answered(id: string): void;
  /** The session was ended by its client (DELETE). */
  deleted(id: string): Promise<void>;
  /** Stops (at shutdown); the sessions themselves are the host's to close. */
  close(): Promise<void>;
}

/** The refusal of a request on a session opened by another identity (403 `forbidden`). */
export function refuseForeignSession(c: Context, id: string, context: SessionContext, log: Logger): Response {
  log.warn(
    { session: id, identity: context.caller.identity },
    'request on a session opened by another identity refused',
  );
  return jsonRpcErrorResponse(c, new GatewayError('forbidden', 'This session belongs to another identity'));
}
