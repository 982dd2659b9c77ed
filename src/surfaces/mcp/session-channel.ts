import { randomUUID } from 'node:crypto';
import { ResultSchema } from '@modelcontextprotocol/core';
import type {
  ClientCapabilities,
  Server,
  ServerContext,
  ServerNotification,
  ServerRequest,
} from '@modelcontextprotocol/server';
import type { ClientChannel, RelayCapabilities } from '../../foundation/ports/client-channel.js';

type Extra = ServerContext;

/** A session's channel back to its client, and channels tied to single calls of that session. */
export interface SessionChannel {
  channel: ClientChannel;
  /** A channel whose messages travel with the call `extra` belongs to (its response stream). */
  forCall(extra: Extra): ClientChannel;
  /** Ends the session: its close listeners run. */
  close(): void;
  /**
   * Installs a rewrite of the params of notifications sent through the session's channels (flat
   * exposure renames resource URIs by their origin). Returns the function that removes it.
   */
  rewriteNotifications(rewrite: NotificationRewrite): () => void;
}

/** Rewrites a notification's params; `origin` is the namespace of the server it comes from. */
export type NotificationRewrite = (
  method: string,
  params: Record<string, unknown> | undefined,
  origin: string | undefined,
) => Record<string, unknown> | undefined;

/** The relayable part of what the client declared in `initialize`. */
function relayCapabilities(server: Server): RelayCapabilities {
  const declared: ClientCapabilities = server.getClientCapabilities() ?? {};
  const capabilities: RelayCapabilities = {};
  if (declared.sampling) capabilities.sampling = declared.sampling as Record<string, unknown>;
  if (declared.elicitation) capabilities.elicitation = declared.elicitation as Record<string, unknown>;
  if (declared.roots) capabilities.roots = declared.roots as Record<string, unknown>;
  return capabilities;
}

export function createSessionChannel(server: Server): SessionChannel {
  const key = randomUUID();
  const listeners: (() => void)[] = [];
  let rewrite: NotificationRewrite | undefined;
  const outgoing = (method: string, params: Record<string, unknown> | undefined, origin?: string) =>
    ({ method, params: rewrite ? rewrite(method, params, origin) : params }) as ServerNotification;
  const capabilities = () => relayCapabilities(server);
  // A client that initialised (2025 era) keeps a session; a 2026-07-28 request has no handshake.
  const sessionful = () => server.getClientCapabilities() !== undefined;
  const channel: ClientChannel = {
    key,
    get session() {
      return channel;
    },
    get sessionful() {
      return sessionful();
    },
    capabilities,
    request: (method, params, signal) =>
      server.request({ method, params } as ServerRequest, ResultSchema, signal ? { signal } : {}),
    notify: (method, params, origin) => server.notification(outgoing(method, params, origin)),
    onClose: (listener) => void listeners.push(listener),
  };
  return {
    channel,
    forCall: (extra) => ({
      key,
      session: channel,
      get sessionful() {
        return sessionful();
      },
      capabilities,
      request: (method, params, signal) =>
        extra.mcpReq.send({ method, params } as ServerRequest, ResultSchema, signal ? { signal } : {}),
      notify: (method, params, origin) => extra.mcpReq.notify(outgoing(method, params, origin)),
      onClose: channel.onClose,
    }),
    rewriteNotifications: (next) => {
      rewrite = next;
      return () => {
        if (rewrite === next) rewrite = undefined;
      };
    },
    close: () => {
      for (const listener of listeners.splice(0)) {
        try {
          listener();
        } catch {
          // A listener's failure must not keep the others from running.
        }
      }
    },
  };
}
