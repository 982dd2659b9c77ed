import type { Client, ClientCapabilities, LoggingLevel } from '@modelcontextprotocol/client';
import { EmptyResultSchema } from '@modelcontextprotocol/core';
import type { GatewayError } from '../../foundation/model/gateway-error.js';
import type { ClientChannel } from '../../foundation/ports/client-channel.js';
import type { Logger } from '../../foundation/ports/logger.js';
import type { OpenConnection } from './connection-supervisor.js';
import { LinkPolicy, NO_CHANNEL } from './link-policy.js';
import { ListenStream } from './listen-stream.js';
import { isModern } from './modern-requests.js';
import type { Connection } from './open-connection.js';
import { registerRelayHandlers } from './relay-handlers.js';
import { type InFlightCall, SessionLinks } from './session-links.js';
import { SharedConnectionState } from './shared-connection-state.js';

/** A notification from the server's shared connection (logging, resource and prompt changes). */
export type DownstreamNotificationListener = (
  method: string,
  params: Record<string, unknown> | undefined,
) => void;

/**
 * A session link in the 2025 era could not be had from a server the gateway reaches in the
 * 2026-07-28 era (it refuses `initialize`, or serves it statelessly: its requests to the client
 * could not be answered); the call goes on the shared connection, its asks as input rounds.
 */
class NoLegacySession extends Error {}

/** How long a client's `resources/subscribe` waits for a 2026-07-28 server's listen stream. */
const LISTEN_WAIT_MS = 3000;

/**
 * What the shared connection declares: servers list some tools only to clients that can answer
 * sampling or elicitation, and the gateway can relay both for clients that can (on their links).
 * Not roots: a server that asks for roots may replace its configured ones with the answer.
 */
export const SHARED_CAPABILITIES: ClientCapabilities = { sampling: {}, elicitation: {} };

export interface DownstreamRelayOptions {
  /** The key in `servers`. */
  name: string;
  namespace: string;
  log: Logger;
  /** Opens a session link (`ConnectionSupervisor.open`). */
  open: OpenConnection;
  /** The shared connection while it is up. */
  connection: () => Connection | undefined;
  /** Whether the server counts as connected (a call on a server that is down fails at once). */
  connected: () => boolean;
  /** The error a request gets while the server is down. */
  unavailable: () => GatewayError;
  /** The server announced that its tools changed (`notifications/tools/list_changed`). */
  toolsChanged: () => void;
  /** Session links open at once at most (see `SessionLinks`). Default 8. */
  maxSessionLinks?: number;
  /** A session link with no call in flight for this long is closed. Default 60000 ms. */
  linkIdleMs?: number;
}

/**
 * How requests reach one downstream server for the client sessions the gateway serves: each on
 * the shared connection, or on a link of the session's own when the server may ask that session
 * something during it (`LinkPolicy`, `SessionLinks`). It also keeps what the sessions asked of the
 * shared connection (subscriptions, log level; `SharedConnectionState`), relays the server's
 * requests and notifications back to them, and — to a 2026-07-28 server — holds the connection's
 * `subscriptions/listen` stream.
 */
export class DownstreamRelay {
  private readonly links: SessionLinks;
  private readonly policy: LinkPolicy;
  private readonly shared: SharedConnectionState;
  private readonly listeners = new Set<DownstreamNotificationListener>();
  /** The `subscriptions/listen` stream of the shared connection, to a 2026-07-28 server. */
  private listenStream: ListenStream | undefined;
  /**
   * Whether a 2026-07-28 server also keeps 2025 sessions (learnt at the first link: undefined
   * until then). Such a server asks a 2025 client best on a session of that era (see `withClient`).
   */
  private legacySessions: boolean | undefined;
  /** Subscriptions held on sessions' links (`session key` + newline + URI), not counted on the shared connection. */
  private readonly onLinks = new Set<string>();

  constructor(private readonly options: DownstreamRelayOptions) {
    const maxLinks = options.maxSessionLinks ?? 8;
    this.links = new SessionLinks({
      open: (capabilities, prepare) => this.openLink(capabilities, prepare),
      maxLinks,
      idleMs: options.linkIdleMs ?? 60_000,
      onAsked: (method, calls) => this.policy.asked(method, calls),
      log: options.log,
      origin: options.namespace,
    });
    this.policy = new LinkPolicy(this.links, options.log, {
      server: options.name,
      maxSessionLinks: maxLinks,
    });
    this.shared = new SharedConnectionState({
      send: (method, params) =>
        this.withClient(undefined, async (client): Promise<unknown> => {
          if (!isModern(client)) return client.request({ method, params }, EmptyResultSchema);
          // The 2026-07-28 revision has neither: the level goes with each request, subscriptions
          // are the connection's `subscriptions/listen` stream.
          // The subscription is answered once the stream listens for it, or after a few seconds
          // at the latest (a server slow to acknowledge must not time the client's request out).
          // A server that takes no resource subscriptions has nothing new to listen for.
          if (method !== 'logging/setLevel' && client.getServerCapabilities()?.resources?.subscribe)
            await this.listenStream?.refresh(LISTEN_WAIT_MS);
          return {};
        }),
      connected: () => options.connection() !== undefined,
      log: options.log,
    });
  }

  /** Whether `client` was a session's link whose session the server forgot (it restarted). */
  lostLink(client: Client): boolean {
    return this.links.lostSession(client);
  }

  /** How many session links are open now. */
  get sessionLinks(): number {
    return this.links.size;
  }

  /**
   * Runs `use` with a client for `channel`'s session: a link of the session's own when the call
   * may need one, the shared connection otherwise. `tool` names the downstream tool when the
   * request is a tool call.
   */
  async withClient<T>(
    channel: ClientChannel | undefined,
    use: (client: Client) => Promise<T>,
    tool?: string,
  ): Promise<T> {
    // Down is down for every session: no waiting on a link to a server that just failed.
    if (!this.options.connected()) throw this.options.unavailable();
    const call: InFlightCall = { channel: channel ?? NO_CHANNEL, asked: false, ...(tool ? { tool } : {}) };
    let result: T | undefined;
    const current = this.options.connection();
    // A 2026-07-28 server asks in the answer to the call itself (the gateway answers its rounds by
    // asking the client), so a link buys nothing — unless the caller keeps a 2025 session and the
    // server keeps 2025 sessions too: then a link of that era lets the server ask the way its 2025
    // side does. That is the robust way for a server that speaks both eras: many ask only on their
    // 2025 side (the 2026 side of the conformance suite's reference server cannot ask at all), and
    // the client gets exactly the requests it knows, nothing translated.
    const modern = current !== undefined && isModern(current.client);
    const linkable =
      !modern ||
      (channel?.sessionful === true && channel.direct === undefined && this.legacySessions !== false);
    let linked = false;
    if (channel && linkable && this.policy.wantsLink(channel, tool)) {
      try {
        result = await this.links.with(channel.session, call, use);
        linked = true;
      } catch (error) {
        if (!(error instanceof NoLegacySession)) throw error;
      }
    }
    if (!linked) {
      if (!current) throw this.options.unavailable();
      result = await this.policy.onShared(call, () => use(current.client));
    }
    this.policy.finished(call);
    return result as T;
  }

  /**
   * Opens a session link. To a server reached in the 2026-07-28 era the link is a 2025 session
   * (`initialize`); a server that refuses it, or keeps no session (its `initialize` answer gave
   * no session id: its requests to the client could never be answered), is remembered as keeping
   * none and the call goes on the shared connection.
   */
  private async openLink(
    capabilities: ClientCapabilities,
    prepare: (client: Client) => void,
  ): Promise<Connection> {
    const log = this.options.log.child({ link: true });
    const current = this.options.connection();
    if (current === undefined || !isModern(current.client))
      return this.options.open(capabilities, prepare, log);
    let connection: Connection;
    try {
      connection = await this.options.open(capabilities, prepare, log, 'legacy');
    } catch (error) {
      this.noLegacySessions((error as Error).message);
      throw new NoLegacySession((error as Error).message);
    }
    const sessionId = (connection.client.transport as { sessionId?: string } | undefined)?.sessionId;
    if (connection.transport === 'streamable-http' && sessionId === undefined) {
      await connection.close().catch(() => {});
      this.noLegacySessions('its 2025 side keeps no session');
      throw new NoLegacySession('no 2025 session');
    }
    if (this.legacySessions !== true) {
      this.legacySessions = true;
      this.options.log.info(
        { server: this.options.name },
        "this 2026-07-28 server keeps 2025 sessions too: 2025 clients' calls that may ask go on sessions of that era",
      );
    }
    return connection;
  }

  private noLegacySessions(reason: string): void {
    if (this.legacySessions === false) return;
    this.legacySessions = false;
    this.options.log.info(
      { server: this.options.name, reason },
      'no 2025 session to this 2026-07-28 server: its asks reach 2025 clients as translated input rounds',
    );
  }

  /** Subscribes to the shared connection's notifications; returns the unsubscribe function. */
  onNotification(listener: DownstreamNotificationListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Hands every listener a notification (of the shared connection, or another gateway's). */
  deliver(method: string, params?: Record<string, unknown>): void {
    for (const listener of this.listeners) listener(method, params);
  }

  /**
   * Counts `uri`'s subscription in or out (sessions share one, on the shared connection). A
   * 2026-07-28 server whose modern side takes no subscriptions may take them on its 2025 sessions:
   * a 2025 client's subscription then goes on its own session link, whose updates are its own.
   */
  async subscription(uri: string, on: boolean, channel?: ClientChannel): Promise<void> {
    const key = channel ? `${channel.session.key}\n${uri}` : undefined;
    if (channel && key && !on && this.onLinks.delete(key)) {
      // Gone with its link if the session ended: nothing to send then.
      if (this.links.holds(channel.session, uri)) await this.links.subscription(channel.session, uri, false);
      return;
    }
    if (channel && key && on && this.subscribesOnLink(channel)) {
      try {
        if (await this.links.subscription(channel.session, uri, true)) {
          this.onLinks.add(key);
          return;
        }
      } catch (error) {
        if (!(error instanceof NoLegacySession)) throw error;
      }
    }
    await this.shared.subscription(uri, on);
  }

  /** Whether `channel`'s subscriptions may need a 2025 link: the server's modern side takes none. */
  private subscribesOnLink(channel: ClientChannel): boolean {
    const current = this.options.connection();
    if (!current || !isModern(current.client)) return false;
    if (current.client.getServerCapabilities()?.resources?.subscribe) return false;
    return channel.sessionful === true && channel.direct === undefined && this.legacySessions !== false;
  }

  /** Sets `channel`'s session's log level; the shared connection gets the most verbose one. */
  setLogLevel(channel: ClientChannel, level: LoggingLevel): Promise<void> {
    return this.shared.setLogLevel(channel, level);
  }

  /** The log level the sessions asked for (a 2026-07-28 server gets it with each request). */
  logLevel(): LoggingLevel | undefined {
    return this.shared.mergedLevel();
  }

  /** Relays a client notification (`notifications/roots/list_changed`) to the session's link. */
  notifySession(channel: ClientChannel, method: string, params?: Record<string, unknown>): Promise<void> {
    return this.links.notify(channel.session, method, params);
  }

  /** Sets up a fresh shared connection's client: the server's requests and notifications come here. */
  prepareShared(client: Client): void {
    // Sessions whose calls may need to answer have links of their own; see LinkPolicy.
    client.fallbackRequestHandler = async (request, extra) =>
      (await this.policy.relayShared(request.method, request.params, extra.mcpReq.signal)) as never;
    registerRelayHandlers(client, SHARED_CAPABILITIES);
    client.fallbackNotificationHandler = async (notification) => {
      if (notification.method === 'notifications/tools/list_changed') this.options.toolsChanged();
      this.deliver(notification.method, notification.params);
    };
  }

  /**
   * The shared connection is up: what the sessions asked of the previous one is asked again (a
   * 2026-07-28 server's subscriptions are the listen stream's filter, which has them all).
   */
  connected(connection: Connection): void {
    const modern = isModern(connection.client);
    // The server may have changed (or a link failed for a passing reason): learnt again.
    this.legacySessions = undefined;
    if (modern) this.listen(connection);
    this.shared.restore((method, params) =>
      modern ? Promise.resolve({}) : connection.client.request({ method, params }, EmptyResultSchema),
    );
  }

  /** The shared connection is gone: its listen stream ends with it. */
  closeListening(): void {
    void this.listenStream?.close();
  }

  /** Closes every session link. */
  closeLinks(): Promise<void> {
    return this.links.closeAll();
  }

  /**
   * A 2026-07-28 server says what changed only on a `subscriptions/listen` stream: the list changes
   * it announces and the resources the sessions subscribed to.
   */
  private listen(connection: Connection): void {
    void this.listenStream?.close();
    const client = connection.client;
    const stream = new ListenStream(client, {
      filter: () => {
        const capabilities = client.getServerCapabilities();
        const uris = capabilities?.resources?.subscribe ? this.shared.uris() : [];
        return {
          ...(capabilities?.tools?.listChanged ? { toolsListChanged: true } : {}),
          ...(capabilities?.prompts?.listChanged ? { promptsListChanged: true } : {}),
          ...(capabilities?.resources?.listChanged ? { resourcesListChanged: true } : {}),
          ...(uris.length > 0 ? { resourceSubscriptions: uris } : {}),
        };
      },
      wanted: () => this.options.connection() === connection && this.options.connected(),
      log: this.options.log,
    });
    this.listenStream = stream;
    void stream.refresh();
  }
}
