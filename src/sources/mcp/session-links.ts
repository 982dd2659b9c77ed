import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { ClientChannel } from '../../foundation/client-channel.js';
import type { Logger } from '../../foundation/logger.js';
import type { Connection } from './open-connection.js';

/** Notifications a session's downstream link relays to its client (tool-list changes are the catalog's). */
const RELAYED_NOTIFICATIONS = new Set(['notifications/message', 'notifications/resources/updated']);

interface Link {
  connection: Promise<Connection>;
  /** The channels of calls in flight on this link; server requests go to the latest one. */
  calls: ClientChannel[];
  session: ClientChannel;
}

/**
 * Downstream connections bound to one client session each. A downstream server that sends
 * `sampling/createMessage`, `elicitation/create` or `roots/list` while serving a call has no way
 * to say which client it means; on a link of its own per client session, the answer is always
 * that session. Links open on first use, advertise exactly the capabilities the client declared,
 * and close when the session ends.
 */
export class SessionLinks {
  private readonly links = new Map<string, Link>();

  constructor(
    private readonly open: (
      capabilities: ClientCapabilities,
      prepare: (client: Client) => void,
    ) => Promise<Connection>,
    private readonly log: Logger,
    /** The namespace of the server the links lead to, given with the notifications they relay. */
    private readonly origin?: string,
  ) {}

  get size(): number {
    return this.links.size;
  }

  /**
   * Runs `use` with the session's client. `call` (the channel of the current call, if any) receives
   * the server's requests and notifications while `use` runs.
   */
  async with<T>(
    session: ClientChannel,
    call: ClientChannel,
    use: (client: Client) => Promise<T>,
  ): Promise<T> {
    const link = this.linkFor(session);
    const connection = await link.connection;
    link.calls.push(call);
    try {
      return await use(connection.client);
    } finally {
      link.calls.splice(link.calls.lastIndexOf(call), 1);
    }
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
    await Promise.allSettled(links.map(async (link) => (await link.connection).close()));
  }

  private linkFor(session: ClientChannel): Link {
    const existing = this.links.get(session.key);
    if (existing) return existing;
    const link: Link = { calls: [], session, connection: Promise.resolve(undefined as never) };
    const target = () => link.calls.at(-1) ?? link.session;
    const capabilities = session.capabilities() as ClientCapabilities;
    link.connection = this.open(capabilities, (client) => {
      client.fallbackRequestHandler = async (request, extra) =>
        (await target().request(request.method, request.params, extra.signal)) as never;
      client.fallbackNotificationHandler = async (notification) => {
        if (RELAYED_NOTIFICATIONS.has(notification.method)) {
          await target().notify(notification.method, notification.params, this.origin);
        }
      };
    }).then((connection) => {
      connection.client.onclose = () => {
        // A crashed link is forgotten; the session's next call opens a fresh one.
        if (this.links.get(session.key) === link) this.links.delete(session.key);
      };
      return connection;
    });
    link.connection.catch(() => {
      if (this.links.get(session.key) === link) this.links.delete(session.key);
    });
    this.links.set(session.key, link);
    session.onClose(() => {
      if (this.links.get(session.key) !== link) return;
      this.links.delete(session.key);
      link.connection
        .then(
          (connection) => connection.close(),
          () => {},
        )
        .catch((error) => this.log.debug({ err: String(error) }, 'closing a session link failed'));
    });
    return link;
  }
}
