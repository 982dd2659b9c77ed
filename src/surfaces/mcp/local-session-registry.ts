import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type { Context } from 'hono';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { jsonRpcErrorResponse } from '../http/http-error.js';
import { type SessionContext, sessionOwner } from './session-factory.js';
import {
  type HeldSession,
  refuseForeignSession,
  type SessionHost,
  type SessionRegistry,
} from './session-registry.js';

/**
 * The sessions of this process only (one replica): a session is what the host holds, checked for
 * its owner and endpoint; nothing is recorded or relayed anywhere.
 */
export class LocalSessionRegistry<S extends HeldSession> implements SessionRegistry<S> {
  constructor(private readonly host: Pick<SessionHost<S>, 'held' | 'log'>) {}

  async owned(c: Context, id: string, context: SessionContext, endpoint: string): Promise<S | Response> {
    return this.check(c, id, context, endpoint);
  }

  /** {@link owned} without a turn of the event loop (the replicated registry's fallback). */
  check(c: Context, id: string, context: SessionContext, endpoint: string): S | Response {
    const session = this.host.held(id);
    if (!session || session.endpoint !== endpoint)
      return jsonRpcErrorResponse(c, new GatewayError('not_found', 'Session not found'));
    if (session.owner !== sessionOwner(context.caller))
      return refuseForeignSession(c, id, context, this.host.log);
    return session;
  }

  async opened(): Promise<Response | undefined> {
    return undefined;
  }

  async changes(_id: string, _session: S, body: unknown): Promise<unknown> {
    return body;
  }

  outgoing(message: JSONRPCMessage): JSONRPCMessage {
    return message;
  }

  answered(): void {}

  async deleted(): Promise<void> {}

  async close(): Promise<void> {}
}
