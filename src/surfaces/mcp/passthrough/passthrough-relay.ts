import type { Client, LoggingLevel, ServerCapabilities } from '@modelcontextprotocol/client';
import type { ClientChannel } from '../../../foundation/ports/client-channel.js';

/**
 * One downstream server as flat exposure's passthrough sees it: the port the passthrough's
 * capabilities (resources, prompts, completions, logging) talk to. `DownstreamServer` is the
 * real one; tests relay to an in-memory server.
 */
export interface PassthroughRelay {
  /** The key in `servers`, for logs. */
  readonly name: string;
  /** Its namespace: prompt names and namespaced resource URIs carry it. */
  readonly namespace: string;
  /** Its catalog source (`mcp:<name>`): tools of its results are known by it. */
  readonly sourceId: string;
  /** What it offers, once connected (undefined while it is down). */
  capabilities(): ServerCapabilities | undefined;
  /** Runs `use` with the client a request of `channel`'s session goes on. */
  withClient<T>(channel: ClientChannel | undefined, use: (client: Client) => Promise<T>): Promise<T>;
  /** Subscribes `channel`'s session to updates of `uri` (the server's own URI), or ends that. */
  subscription(uri: string, channel: ClientChannel, on: boolean): Promise<void>;
  /** Sets the log level `channel`'s session asked for. */
  setLogLevel(channel: ClientChannel, level: LoggingLevel): Promise<void>;
  /** The log level the sessions asked for (a 2026-07-28 server gets it with each request). */
  logLevel(): LoggingLevel | undefined;
  /** Relays a client notification to the session's own connection to the server, if any. */
  notifySession(channel: ClientChannel, method: string, params?: Record<string, unknown>): Promise<void>;
  /** Listens to the notifications of the server's shared connection; returns the unsubscribe. */
  onNotification(listener: (method: string, params: Record<string, unknown> | undefined) => void): () => void;
}

/** A downstream server as flat exposure sees it: its `prefix` setting decides prompt names. */
export interface PassthroughServer {
  server: PassthroughRelay;
  prefix: boolean;
}
