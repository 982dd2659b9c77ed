import type { Client, ClientCapabilities } from '@modelcontextprotocol/client';
import { EmptyResultSchema } from '@modelcontextprotocol/core';
import type { ClientChannel } from '../../foundation/ports/client-channel.js';
import type { Logger } from '../../foundation/ports/logger.js';
import { isSessionLost, isStreamSessionLost } from './call-failure.js';
import type { Connection } from './open-connection.js';
import { registerRelayHandlers } from './relay-handlers.js';

/** Notifications a session's downstream link relays to its client (tool-list changes are the catalog's). */
const RELAYED_NOTIFICATIONS = new Set(['notifications/message', 'notifications/resources/updated']);

/** One call in flight on a connection: whose it is, which tool, and whether the server asked anything. */
export interface InFlightCall {
  channel: ClientChannel;
  /** The downstream tool's own name; absent for requests that are not tool calls. */
  tool?: string;
  /** Set when the server sent a request to the client while this call was in flight. */
  asked: boolean;
}

export interface SessionLinksOptions {
  open: (capabilities: ClientCapabilities, prepare: (client: Client) => void) => Promise<Connection>;
  /** Links open at once at most; past it, sessions share the server's connection. */
  maxLinks: number;
  /** A link with no call in flight for this long is closed (the session's next call opens another). */
  idleMs: number;
  /** The server sent `method` to a client over a link, with `calls` in flight on it. */
  onAsked: (method: string, calls: readonly InFlightCall[]) => void;
  log: Logger;
  /** The namespace of the server the links lead to, given with the notifications they relay. */
  origin?: string;
}

interface Link {
  connection: Promise<Connection>;
  /** The calls in flight on this link; server requests go to the latest one. */
  calls: InFlightCall[];
  session: ClientChannel;
  idle: NodeJS.Timeout | undefined;
  /** Resource URIs the session subscribed to on this link: it stays open while there are any. */
  subscribed: Set<string>;
}

/**
 * Downstream connections bound to one client session each. A downstream server that sends
 * `sampling/createMessage`, `elicitation/create` or `roots/list` while serving a call has no way
 * to say which client it means; on a link of its own per client session, the answer is always
 * that session. Each link is a connection — for a stdio server a process — so they are bounded:
 * at most `maxLinks` at once (the caller falls back to the shared connection past it), and a link
 * with nothing in flight for `idleMs` is closed. Links advertise exactly the capabilities the
 * client declared, and close when the session ends.
 */
export class SessionLinks {
  private readonly links = new Map<string, Link>();
  /** Link clients whose session the server forgot (it restarted during their calls). */
  private readonly lost = new WeakSet<Client>();
  /** Sessions whose end is watched (once per session, however many links it opens over time). */
  private readonly watched = new Set<string>();

  constructor(private readonly options: SessionLinksOptions) {}

  get size(): number {
    return this.links.size;
  }

  /** True when `session` has a link now. */
  has(session: ClientChannel): boolean {
    return this.links.has(session.key);
  }

  /** True when `session` has a link or one more may be opened for it. */
  available(session: ClientChannel): boolean {
    return this.links.has(session.key) || this.links.size < this.options.maxLinks;
  }

  /**
   * Runs `use` with the session's client, opening its link if it has none. `call` receives the
   * server's requests and notifications while `use` runs.
   */
  async with<T>(session: ClientChannel, call: InFlightCall, use: (client: Client) => Promise<T>): Promise<T> {
    const link = this.linkFor(session);
    clearTimeout(link.idle);
    link.calls.push(call);
    try {
      const connection = await link.connection;
      return await use(connection.client);
    } catch (error) {
      // The server forgot this link's session (it restarted): the link is forgotten, and the
      // session's next call (or the caller's one retry) opens a fresh one.
      if (isSessionLost(error)) this.drop(link);
      throw error;
    } finally {
      link.calls.splice(link.calls.lastIndexOf(call), 1);
      if (link.calls.length === 0) this.idleLater(link);
    }
  }

  /**
   * Subscribes `session` to `uri` on the session's own link (opened if needed) — for a server that
   * takes subscriptions on its 2025 sessions only — or ends that subscription. A link holding
   * subscriptions is not closed for idleness: its updates are the session's. Answers false, sending
   * nothing, when the link's server takes no subscriptions either, or (ending) when the session
   * holds no subscription to `uri` here.
   */
  async subscription(session: ClientChannel, uri: string, on: boolean): Promise<boolean> {
    if (!on) {
      const link = this.links.get(session.key);
      if (!link?.subscribed.delete(uri)) return false;
      await this.with(session, { channel: session, asked: false }, (client) =>
        client.request({ method: 'resources/unsubscribe', params: { uri } }, EmptyResultSchema),
      );
      return true;
    }
    return this.with(session, { channel: session, asked: false }, async (client) => {
      if (!client.getServerCapabilities()?.resources?.subscribe) return false;
      await client.request({ method: 'resources/subscribe', params: { uri } }, EmptyResultSchema);
      this.links.get(session.key)?.subscribed.add(uri);
      return true;
    });
  }

  /** Whether `session` holds a subscription to `uri` on its link. */
  holds(session: ClientChannel, uri: string): boolean {
    return this.links.get(session.key)?.subscribed.has(uri) === true;
  }

  /** Whether `client` was a link whose session the server forgot (it restarted). */
  lostSession(client: Client): boolean {
    return this.lost.has(client);
  }

  /** Sends a notification on the session's link, if it has one (e.g. the client's roots changed). */
  async notify(session: ClientChannel, method: string, params?: Record<string, unknown>): Promise<void> {
    const link = this.links.get(session.key);
    if (!link) return;
    const connection = await link.connection;
    await connection.client.notification({ method, ...(params ? { params } : {}) } as never);
  }

  /** Closes every link (gateway shutdown). */
  async closeAll(): Promise<void> {
    const links = [...this.links.values()];
    this.links.clear();
    for (const link of links) clearTimeout(link.idle);
    await Promise.allSettled(links.map(async (link) => (await link.connection).close()));
  }

  private idleLater(link: Link): void {
    clearTimeout(link.idle);
    link.idle = setTimeout(() => {
      if (link.calls.length > 0 || link.subscribed.size > 0) return;
      this.options.log.debug({ session: link.session.key }, 'idle session link closed');
      this.drop(link);
    }, this.options.idleMs);
    link.idle.unref?.();
  }

  /** Forgets `link` and closes its connection. */
  private drop(link: Link): void {
    clearTimeout(link.idle);
    if (this.links.get(link.session.key) === link) this.links.delete(link.session.key);
    link.connection
      .then(
        (connection) => connection.close(),
        () => {},
      )
      .catch((error) => this.options.log.debug({ err: String(error) }, 'closing a session link failed'));
  }

  private linkFor(session: ClientChannel): Link {
    const existing = this.links.get(session.key);
    if (existing) return existing;
    const link: Link = {
      calls: [],
      session,
      connection: Promise.resolve(undefined as never),
      idle: undefined,
      subscribed: new Set(),
    };
    const target = () => link.calls.at(-1)?.channel ?? link.session;
    const capabilities = session.capabilities() as ClientCapabilities;
    link.connection = this.options
      .open(capabilities, (client) => {
        client.fallbackRequestHandler = async (request, extra) => {
          for (const call of link.calls) call.asked = true;
          this.options.onAsked(request.method, link.calls);
          return (await target().request(request.method, request.params, extra.mcpReq.signal)) as never;
        };
        registerRelayHandlers(client, capabilities);
        client.fallbackNotificationHandler = async (notification) => {
          if (RELAYED_NOTIFICATIONS.has(notification.method)) {
            await target().notify(notification.method, notification.params, this.options.origin);
          }
        };
      })
      .then((connection) => {
        // A server that restarted ends the link's event stream and answers 404 to its resumption:
        // the calls in flight on it would wait for ever. The link is dropped, so they fail now.
        connection.client.onerror = (error) => {
          if (!isStreamSessionLost(error)) return;
          this.lost.add(connection.client);
          this.drop(link);
        };
        connection.client.onclose = () => {
          // A crashed link is forgotten; the session's next call opens a fresh one.
          if (this.links.get(session.key) === link) this.links.delete(session.key);
          clearTimeout(link.idle);
        };
        return connection;
      });
    link.connection.catch(() => {
      if (this.links.get(session.key) === link) this.links.delete(session.key);
    });
    this.links.set(session.key, link);
    if (!this.watched.has(session.key)) {
      this.watched.add(session.key);
      session.onClose(() => {
        this.watched.delete(session.key);
        const current = this.links.get(session.key);
        if (current) this.drop(current);
      });
    }
    return link;
  }
}
