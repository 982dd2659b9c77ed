import type { Client, LoggingLevel, ServerCapabilities } from '@modelcontextprotocol/client';
import type { CatalogEntry } from '../../catalog/catalog-entry.js';
import type { Tool } from '../../foundation/model/tool.js';
import type { ClientChannel } from '../../foundation/ports/client-channel.js';
import type { Logger } from '../../foundation/ports/logger.js';
import type { DownstreamCallObserver } from '../../foundation/ports/operation-observer.js';
import type { ExecutionContext, ToolBackend } from '../../foundation/ports/tool-backend.js';
import {
  ConnectionSupervisor,
  type DownstreamStatus,
  type StateTransition,
} from './connection-supervisor.js';
import { DownstreamBackend } from './downstream-backend.js';
import {
  type DownstreamNotificationListener,
  DownstreamRelay,
  SHARED_CAPABILITIES,
} from './downstream-relay.js';
import type { DownstreamTarget } from './open-connection.js';
import { DEFAULT_STARTUP_TIMEOUT_MS } from './startup-timeout.js';
import { ToolListing } from './tool-listing.js';

export type { DownstreamState, DownstreamStatus } from './connection-supervisor.js';
export type { DownstreamNotificationListener } from './downstream-relay.js';
export { SHARED_CAPABILITIES } from './downstream-relay.js';

export interface DownstreamServerOptions {
  /** The key in `servers`. */
  name: string;
  namespace: string;
  target: DownstreamTarget;
  timeoutMs?: number;
  /** Re-list tools this often when the server does not announce changes; 0 never. */
  relistIntervalMs: number;
  clientInfo: { name: string; version: string };
  /** Receives the server's whole tool list after each (re-)listing. */
  publish: (entries: CatalogEntry[]) => void;
  log: Logger;
  /** Backoff bounds (tests shorten them). */
  backoff?: { minMs?: number; maxMs?: number };
  /** How long starting the server and `initialize` may take; default {@link DEFAULT_STARTUP_TIMEOUT_MS}. */
  connectTimeoutMs?: number;
  /** Told of every `tools/call` sent (spans). Default none. */
  observer?: DownstreamCallObserver;
  /** Called each time the shared connection is (re-)established: the server is back. */
  onConnected?: () => void;
  /** Connections of single client sessions open at once at most (see `SessionLinks`). Default 8. */
  maxSessionLinks?: number;
  /** A session link with no call in flight for this long is closed. Default 60000 ms. */
  linkIdleMs?: number;
}

/**
 * One downstream MCP server, supervised (docs/DESIGN.md §1, sources/): the façade over its three
 * parts. `ConnectionSupervisor` keeps the shared connection up (backoff, restarts, `reconnect`);
 * `ToolListing` lists its tools through every page and again on `tools/list_changed` (or on an
 * interval); `DownstreamRelay` carries the client sessions' requests to it — on the shared
 * connection or a session link — with what they asked of it (subscriptions, log level) restored
 * on every new connection; `DownstreamBackend` executes its catalog tools. While it is down, calls
 * fail at once with `backend_unavailable`.
 */
export class DownstreamServer implements ToolBackend {
  readonly sourceId: string;
  /** The server's last state changes, oldest first, with times. */
  transitions(): StateTransition[] {
    return this.supervisor.transitions();
  }

  /** Settles when the first connection attempt has finished, whatever its outcome. */
  readonly firstAttempt: Promise<void>;
  private readonly supervisor: ConnectionSupervisor;
  private readonly listing: ToolListing;
  private readonly relay: DownstreamRelay;
  private readonly backend: DownstreamBackend;

  constructor(private readonly options: DownstreamServerOptions) {
    this.sourceId = `mcp:${options.name}`;
    const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
    this.listing = new ToolListing({
      server: options.name,
      sourceId: this.sourceId,
      namespace: options.namespace,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      listTimeoutMs: connectTimeoutMs,
      relistIntervalMs: options.relistIntervalMs,
      backend: this,
      client: () => this.supervisor.connection?.client,
      publish: options.publish,
      log: options.log,
    });
    this.relay = new DownstreamRelay({
      name: options.name,
      namespace: options.namespace,
      log: options.log,
      open: (capabilities, prepare, log, era) => this.supervisor.open(capabilities, prepare, log, era),
      connection: () => this.supervisor.connection,
      connected: () => this.supervisor.state === 'connected',
      unavailable: () => this.supervisor.unavailable(),
      toolsChanged: () => this.listing.relistInBackground('re-listing tools failed'),
      ...(options.maxSessionLinks === undefined ? {} : { maxSessionLinks: options.maxSessionLinks }),
      ...(options.linkIdleMs === undefined ? {} : { linkIdleMs: options.linkIdleMs }),
    });
    this.backend = new DownstreamBackend({
      name: options.name,
      log: options.log,
      withClient: (channel, use, tool) => this.relay.withClient(channel, use, tool),
      logLevel: () => this.relay.logLevel(),
      reconnect: (client) => (client ? this.supervisor.sessionLost(client) : this.supervisor.reconnectNow()),
      lostSession: (client) => this.supervisor.lostSession(client) || this.relay.lostLink(client),
      isShared: (client) =>
        this.supervisor.connection?.client === client || this.supervisor.lostSession(client),
      incidentOf: (client) => this.supervisor.incidentOf(client),
      ...(options.observer ? { observer: options.observer } : {}),
    });
    this.supervisor = new ConnectionSupervisor({
      name: options.name,
      sourceId: this.sourceId,
      target: options.target,
      clientInfo: options.clientInfo,
      log: options.log,
      ...(options.backoff ? { backoff: options.backoff } : {}),
      connectTimeoutMs,
      capabilities: SHARED_CAPABILITIES,
      prepare: (client) => this.relay.prepareShared(client),
      establish: () => this.listing.relist(),
      up: (connection) => {
        this.listing.schedule(connection.client);
        this.relay.connected(connection);
        options.log.info(
          {
            tools: this.listing.size,
            transport: connection.transport,
            protocolVersion: connection.protocolVersion,
            pid: connection.pid,
          },
          'server connected',
        );
        options.onConnected?.();
      },
      down: (reason) => {
        this.listing.unschedule();
        // A replaced connection's stream ends when the new one's starts (`listen`).
        if (reason !== 'replaced') this.relay.closeListening();
      },
    });
    this.firstAttempt = this.supervisor.firstAttempt;
  }

  get name(): string {
    return this.options.name;
  }

  get namespace(): string {
    return this.options.namespace;
  }

  snapshot(): DownstreamStatus {
    return { ...this.supervisor.snapshot(), tools: this.listing.size };
  }

  /**
   * What only an admin sees (the console's servers page): since when the current connection is
   * up, and the server's last stderr lines (unmasked here; the gateway masks them).
   */
  details(): { connectedAt?: string; stderr: string[] } {
    return this.supervisor.details();
  }

  /** The pid of the shared connection's process (stdio servers, while connected). */
  pid(): number | undefined {
    return this.supervisor.connection?.pid;
  }

  /** The server's capabilities, once connected. */
  capabilities(): ServerCapabilities | undefined {
    return this.supervisor.connection?.client.getServerCapabilities();
  }

  /** Subscribes to the shared connection's notifications; returns the unsubscribe function. */
  onNotification(listener: DownstreamNotificationListener): () => void {
    return this.relay.onNotification(listener);
  }

  /**
   * Lists the server's tools again now, over the shared connection: another gateway heard this
   * server announce a change (replicas share state, each has its own connections). Rejects when
   * not connected; the next connection lists anyway.
   */
  relist(): Promise<void> {
    return this.listing.relist();
  }

  /**
   * Hands the listeners of the shared connection a notification another gateway's connection to
   * this server received (`notifications/resources/updated`), as if this one had.
   */
  deliver(method: string, params?: Record<string, unknown>): void {
    this.relay.deliver(method, params);
  }

  /** How many session links are open now. */
  get sessionLinks(): number {
    return this.relay.sessionLinks;
  }

  /**
   * Runs `use` with a client for `channel`'s session: a link of the session's own when the call
   * may need one, the shared connection otherwise. `tool` names the downstream tool when the
   * request is a tool call.
   */
  withClient<T>(
    channel: ClientChannel | undefined,
    use: (client: Client) => Promise<T>,
    tool?: string,
  ): Promise<T> {
    return this.relay.withClient(channel, use, tool);
  }

  /**
   * Subscribes `channel`'s session to updates of `uri` (or ends that). Sessions share one
   * downstream subscription on the shared connection, counted, so one leaving does not end it
   * for the others (session links come and go; a subscription must outlive them) — except on a
   * server that takes subscriptions on its 2025 sessions only (`DownstreamRelay.subscription`).
   */
  async subscription(uri: string, channel: ClientChannel, on: boolean): Promise<void> {
    await this.relay.subscription(uri, on, channel);
  }

  /**
   * Sets the log level `channel`'s session asked for. Sessions share one level on the shared
   * connection, the most verbose any of them wants (each session still filters what it receives
   * at its own level).
   */
  async setLogLevel(channel: ClientChannel, level: LoggingLevel): Promise<void> {
    await this.relay.setLogLevel(channel, level);
  }

  /** The log level the sessions asked for (a 2026-07-28 server gets it with each request). */
  logLevel(): LoggingLevel | undefined {
    return this.relay.logLevel();
  }

  /** Relays a client notification (`notifications/roots/list_changed`) to the session's link. */
  async notifySession(
    channel: ClientChannel,
    method: string,
    params?: Record<string, unknown>,
  ): Promise<void> {
    await this.relay.notifySession(channel, method, params);
  }

  execute(tool: Tool, args: Record<string, unknown>, ctx: ExecutionContext): Promise<unknown> {
    return this.backend.execute(tool, args, ctx);
  }

  /** Stops supervising and closes every connection (the process group of a stdio server). */
  async stop(): Promise<void> {
    await this.supervisor.stop(() => this.relay.closeLinks());
  }

  /**
   * Drops the connection and connects again now, skipping any backoff wait (the console's
   * reconnect button, `POST /api/admin/sources/{name}/reconnect`). Settles when the attempt ends.
   */
  reconnect(): Promise<void> {
    return this.supervisor.reconnect();
  }
}
