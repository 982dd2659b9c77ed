import type {
  Client,
  ClientCapabilities,
  LoggingLevel,
  RequestOptions,
  ServerCapabilities,
} from '@modelcontextprotocol/client';
import { CallToolResultSchema, EmptyResultSchema } from '@modelcontextprotocol/core';
import type { CatalogEntry } from '../../catalog/catalog-entry.js';
import { type ClientChannel, isInputRequired } from '../../foundation/client-channel.js';
import { GatewayError, toGatewayError } from '../../foundation/gateway-error.js';
import type { Logger } from '../../foundation/logger.js';
import type { DownstreamCallObserver } from '../../foundation/operation-observer.js';
import type { Tool } from '../../foundation/tool.js';
import type { ExecutionContext, ToolBackend } from '../../foundation/tool-backend.js';
import { backoffDelay } from './backoff.js';
import { callFailure, isSessionLost } from './call-failure.js';
import { CallToolResultCheck } from './call-tool-result-check.js';
import { LinkPolicy, NO_CHANNEL } from './link-policy.js';
import { ListenStream } from './listen-stream.js';
import { isModern, requestWithRounds } from './modern-requests.js';
import { type Connection, type DownstreamTarget, openConnection } from './open-connection.js';
import { registerRelayHandlers } from './relay-handlers.js';
import { type InFlightCall, SessionLinks } from './session-links.js';
import { SharedConnectionState } from './shared-connection-state.js';
import { StderrRing } from './stderr-ring.js';
import { ToolListing } from './tool-listing.js';

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

export type DownstreamState = 'connecting' | 'connected' | 'failed' | 'stopped';

/** What `/readyz` and `doctor` show of one server. */
export interface DownstreamStatus {
  state: DownstreamState;
  tools: number;
  transport?: string;
  /** The protocol revision the server speaks (`2026-07-28`, or the 2025 one negotiated). */
  protocolVersion?: string;
  lastError?: { code: string; message: string; details?: Record<string, unknown> };
  /** Connection attempts that failed since the last success. */
  failures: number;
}

/** A notification from the server's shared connection (logging, resource and prompt changes). */
export type DownstreamNotificationListener = (
  method: string,
  params: Record<string, unknown> | undefined,
) => void;

/**
 * What the shared connection declares: servers list some tools only to clients that can answer
 * sampling or elicitation, and the gateway can relay both for clients that can (on their links).
 * Not roots: a server that asks for roots may replace its configured ones with the answer.
 */
export const SHARED_CAPABILITIES: ClientCapabilities = { sampling: {}, elicitation: {} };

/**
 * One downstream MCP server, supervised: it is connected in the background, re-connected with
 * exponential backoff whenever it fails (a stdio server that exits is restarted), its tools are
 * listed through every page and re-listed on `tools/list_changed` (or on an interval when the
 * server never announces changes; `ToolListing`), and it executes its catalog tools. What the
 * sessions sharing its connection asked of it (subscriptions, log level) is kept by
 * `SharedConnectionState` and restored on every new connection. While it is down, calls fail at
 * once with `backend_unavailable`.
 */
export class DownstreamServer implements ToolBackend {
  readonly sourceId: string;
  private connection: Connection | undefined;
  private connecting: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private attempt = 0;
  /** The tool count is the listing's (`snapshot`). */
  private readonly status: Omit<DownstreamStatus, 'tools'> = { state: 'connecting', failures: 0 };
  /** The last stderr lines of the server's processes (stdio), for the console. */
  private readonly stderr = new StderrRing();
  /** When the current shared connection was made (undefined while not connected). */
  private connectedAt: Date | undefined;
  private readonly listing: ToolListing;
  private readonly shared: SharedConnectionState;
  private readonly listeners = new Set<DownstreamNotificationListener>();
  private readonly links: SessionLinks;
  /** Every connection opened gets a number; an outage is named after the connection it ended. */
  private readonly connectionIds = new WeakMap<Client, number>();
  private nextConnectionId = 0;
  private readonly policy: LinkPolicy;
  /** The outage the server is in (`incident` of the failures it causes), while it is down. */
  private outage: string;
  /** Settles when the first connection attempt has finished, whatever its outcome. */
  readonly firstAttempt: Promise<void>;
  /** The `subscriptions/listen` stream of the shared connection, to a 2026-07-28 server. */
  private listenStream: ListenStream | undefined;
  /** Aborted by `stop()`: connection attempts in flight give up. */
  private readonly stopping = new AbortController();

  constructor(private readonly options: DownstreamServerOptions) {
    this.sourceId = `mcp:${options.name}`;
    this.outage = `${this.sourceId}#start`;
    this.links = new SessionLinks({
      open: (capabilities, prepare) => this.open(capabilities, prepare, options.log.child({ link: true })),
      maxLinks: options.maxSessionLinks ?? 8,
      idleMs: options.linkIdleMs ?? 60_000,
      onAsked: (method, calls) => this.policy.asked(method, calls),
      log: options.log,
      origin: options.namespace,
    });
    this.policy = new LinkPolicy(this.links, options.log, {
      server: options.name,
      maxSessionLinks: options.maxSessionLinks ?? 8,
    });
    this.listing = new ToolListing({
      server: options.name,
      sourceId: this.sourceId,
      namespace: options.namespace,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      listTimeoutMs: options.connectTimeoutMs ?? 30_000,
      relistIntervalMs: options.relistIntervalMs,
      backend: this,
      client: () => this.connection?.client,
      publish: options.publish,
      log: options.log,
    });
    this.shared = new SharedConnectionState({
      send: (method, params) =>
        this.withClient(undefined, async (client): Promise<unknown> => {
          if (!isModern(client)) return client.request({ method, params }, EmptyResultSchema);
          // The 2026-07-28 revision has neither: the level goes with each request, subscriptions
          // are the connection's `subscriptions/listen` stream.
          if (method !== 'logging/setLevel') await this.listenStream?.refresh();
          return {};
        }),
      connected: () => this.connection !== undefined,
      log: options.log,
    });
    this.firstAttempt = this.connect();
  }

  get name(): string {
    return this.options.name;
  }

  get namespace(): string {
    return this.options.namespace;
  }

  snapshot(): DownstreamStatus {
    return { ...this.status, tools: this.listing.size };
  }

  /**
   * What only an admin sees (the console's servers page): since when the current connection is
   * up, and the server's last stderr lines (unmasked here; the gateway masks them).
   */
  details(): { connectedAt?: string; stderr: string[] } {
    return {
      ...(this.connectedAt && this.status.state === 'connected'
        ? { connectedAt: this.connectedAt.toISOString() }
        : {}),
      stderr: this.stderr.recent(),
    };
  }

  /** The pid of the shared connection's process (stdio servers, while connected). */
  pid(): number | undefined {
    return this.connection?.pid;
  }

  /** The server's capabilities, once connected. */
  capabilities(): ServerCapabilities | undefined {
    return this.connection?.client.getServerCapabilities();
  }

  /** Subscribes to the shared connection's notifications; returns the unsubscribe function. */
  onNotification(listener: DownstreamNotificationListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
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
    for (const listener of this.listeners) listener(method, params);
  }

  /** How many session links are open now. */
  get sessionLinks(): number {
    return this.links.size;
  }

  /**
   * Runs `use` with a client for `channel`'s session: a link of the session's own when the call
   * may need one (below), the shared connection otherwise. `tool` names the downstream tool when
   * the request is a tool call.
   */
  async withClient<T>(
    channel: ClientChannel | undefined,
    use: (client: Client) => Promise<T>,
    tool?: string,
  ): Promise<T> {
    // Down is down for every session: no waiting on a link to a server that just failed.
    if (this.status.state !== 'connected') throw this.unavailable();
    const call: InFlightCall = { channel: channel ?? NO_CHANNEL, asked: false, ...(tool ? { tool } : {}) };
    let result: T;
    // A 2026-07-28 server asks in the answer to the call itself: a link of its own buys nothing.
    const modern = this.connection !== undefined && isModern(this.connection.client);
    if (channel && !modern && this.policy.wantsLink(channel, tool)) {
      result = await this.links.with(channel.session, call, use);
    } else {
      const connection = this.connection;
      if (!connection) throw this.unavailable();
      result = await this.policy.onShared(call, () => use(connection.client));
    }
    this.policy.finished(call);
    return result;
  }

  /**
   * Subscribes `channel`'s session to updates of `uri` (or ends that). Sessions share one
   * downstream subscription on the shared connection, counted, so one leaving does not end it
   * for the others (session links come and go; a subscription must outlive them).
   */
  async subscription(uri: string, _channel: ClientChannel, on: boolean): Promise<void> {
    await this.shared.subscription(uri, on);
  }

  /**
   * Sets the log level `channel`'s session asked for. Sessions share one level on the shared
   * connection, the most verbose any of them wants (each session still filters what it receives
   * at its own level).
   */
  async setLogLevel(channel: ClientChannel, level: LoggingLevel): Promise<void> {
    await this.shared.setLogLevel(channel, level);
  }

  /** The log level the sessions asked for (a 2026-07-28 server gets it with each request). */
  logLevel(): LoggingLevel | undefined {
    return this.shared.mergedLevel();
  }

  /** Relays a client notification (`notifications/roots/list_changed`) to the session's link. */
  async notifySession(
    channel: ClientChannel,
    method: string,
    params?: Record<string, unknown>,
  ): Promise<void> {
    await this.links.notify(channel.session, method, params);
  }

  async execute(tool: Tool, args: Record<string, unknown>, ctx: ExecutionContext): Promise<unknown> {
    const observer = this.options.observer;
    if (!observer) return this.callTool(tool, args, ctx);
    const end = observer.start({
      server: this.options.name,
      tool: tool.origin.originalName,
      callId: ctx.callId,
    });
    try {
      const result = await this.callTool(tool, args, ctx);
      // The request succeeded, but the tool reported a failure: the call failed all the same.
      end((result as { isError?: unknown }).isError === true ? { errorCode: 'execution_failed' } : {});
      return result;
    } catch (error) {
      end({ errorCode: toGatewayError(error).code });
      throw error;
    }
  }

  private async callTool(tool: Tool, args: Record<string, unknown>, ctx: ExecutionContext): Promise<unknown> {
    const params = { name: tool.origin.originalName, arguments: args };
    let used: Client | undefined;
    const call = (client: Client) => {
      used = client;
      const options: RequestOptions = {
        signal: ctx.signal,
        // The pipeline owns the timeout (and aborts the signal); this is only a backstop.
        timeout: 2_147_483_647,
        onprogress: (progress) => ctx.progress(progress),
      };
      if (isModern(client)) {
        return requestWithRounds<object>(
          client,
          { method: 'tools/call', params },
          CallToolResultSchema,
          options,
          ctx.channel,
          this.shared.mergedLevel(),
        ).then((result) =>
          // A round passed through travels the pipeline as a result (with no content yet).
          isInputRequired(result) ? { content: [], ...result } : result,
        );
      }
      return client.request({ method: 'tools/call', params }, CallToolResultCheck, options);
    };
    try {
      return await this.withClient(ctx.channel, call, tool.origin.originalName);
    } catch (error) {
      if (isSessionLost(error) && !ctx.signal.aborted && !ctx.channel) {
        // The server forgot our HTTP session (it restarted): initialise again and retry once; the
        // server never saw the call, so running it now is not running it twice.
        this.options.log.info({ server: this.options.name }, 'downstream session lost; re-initialising');
        await this.reconnectNow();
        try {
          return await this.withClient(ctx.channel, call, tool.origin.originalName);
        } catch (retryError) {
          throw this.failure(retryError, ctx, used);
        }
      }
      throw this.failure(error, ctx, used);
    }
  }

  /** Stops supervising and closes every connection (the process group of a stdio server). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.status.state = 'stopped';
    clearTimeout(this.retryTimer);
    this.listing.unschedule();
    // A connection attempt in flight (a slow server's `initialize`) is abandoned, its process
    // stopped, rather than waited for up to its connect timeout.
    this.stopping.abort();
    void this.listenStream?.close();
    await this.connecting?.catch(() => {});
    const connection = this.connection;
    this.connection = undefined;
    await Promise.allSettled([connection?.close(), this.links.closeAll()]);
  }

  private unavailable(): GatewayError {
    const last = this.status.lastError;
    // A server waiting for a login says so, with the command: retrying will not help.
    if (last?.code === 'auth_required' && last.details) {
      return new GatewayError('auth_required', last.message, { details: last.details });
    }
    const reason = last?.message ?? 'not connected yet';
    return new GatewayError(
      'backend_unavailable',
      `server "${this.options.name}" is unavailable: ${reason}`,
      {
        // Every call refused during one outage names it: for the circuit breaker, one event.
        details: { server: this.options.name, state: this.status.state, incident: this.outage },
      },
    );
  }

  private failure(error: unknown, ctx: ExecutionContext, client: Client | undefined): GatewayError {
    return callFailure(error, {
      server: this.options.name,
      signal: ctx.signal,
      incident: () => this.incidentOf(client),
    });
  }

  /** The incident named after `client`'s connection ending (or the current outage). */
  private incidentOf(client: Client | undefined): string {
    const id = client ? this.connectionIds.get(client) : undefined;
    return id === undefined ? this.outage : `${this.sourceId}#${id}`;
  }

  private async open(
    capabilities: ClientCapabilities,
    prepare: ((client: Client) => void) | undefined,
    log: Logger,
  ): Promise<Connection> {
    const id = ++this.nextConnectionId;
    const connection = await openConnection(this.options.target, {
      clientInfo: this.options.clientInfo,
      capabilities,
      ...(prepare ? { prepare } : {}),
      log,
      timeoutMs: this.options.connectTimeoutMs ?? 30_000,
      signal: this.stopping.signal,
      onStderr: (line) => this.stderr.push(line),
    });
    this.connectionIds.set(connection.client, id);
    return connection;
  }

  /** One connection attempt; on failure the next one is scheduled with backoff. */
  private connect(): Promise<void> {
    // A server being retried stays `failed` (with its last error) until a retry succeeds.
    if (this.status.failures === 0) this.status.state = 'connecting';
    const attempt = (async () => {
      try {
        const connection = await this.open(
          SHARED_CAPABILITIES,
          (client) => this.prepareShared(client),
          this.options.log,
        );
        if (this.stopped) {
          await connection.close();
          return;
        }
        this.connection = connection;
        connection.client.onclose = () => this.lost(connection);
        await this.listing.relist();
        this.status.transport = connection.transport;
        if (connection.protocolVersion) this.status.protocolVersion = connection.protocolVersion;
        else delete this.status.protocolVersion;
        this.status.state = 'connected';
        this.connectedAt = new Date();
        this.status.failures = 0;
        delete this.status.lastError;
        this.attempt = 0;
        this.listing.schedule(connection.client);
        // A 2026-07-28 server's subscriptions are the listen stream's filter, which has them all.
        const modern = isModern(connection.client);
        if (modern) this.listen(connection);
        this.shared.restore((method, params) =>
          modern ? Promise.resolve({}) : connection.client.request({ method, params }, EmptyResultSchema),
        );
        this.options.log.info(
          {
            tools: this.listing.size,
            transport: connection.transport,
            protocolVersion: connection.protocolVersion,
            pid: connection.pid,
          },
          'server connected',
        );
        this.options.onConnected?.();
      } catch (error) {
        this.failed(error);
      }
    })();
    this.connecting = attempt.finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
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
      wanted: () => this.connection === connection && !this.stopped,
      log: this.options.log,
    });
    this.listenStream = stream;
    void stream.refresh();
  }

  private prepareShared(client: Client): void {
    // Sessions whose calls may need to answer have links of their own; see LinkPolicy.
    client.fallbackRequestHandler = async (request, extra) =>
      (await this.policy.relayShared(request.method, request.params, extra.mcpReq.signal)) as never;
    registerRelayHandlers(client, SHARED_CAPABILITIES);
    client.fallbackNotificationHandler = async (notification) => {
      if (notification.method === 'notifications/tools/list_changed') {
        this.listing.relistInBackground('re-listing tools failed');
      }
      for (const listener of this.listeners) listener(notification.method, notification.params);
    };
  }

  private failed(error: unknown): void {
    const failure = toGatewayError(error);
    const connection = this.connection;
    this.connection = undefined;
    void connection?.close().catch(() => {});
    if (this.stopped) return;
    this.status.state = 'failed';
    this.status.failures++;
    this.status.lastError = {
      code: failure.code,
      message: failure.message,
      ...(failure.code === 'auth_required' && failure.details ? { details: failure.details } : {}),
    };
    const delay = backoffDelay(this.attempt++, this.options.backoff);
    this.options.log.warn({ err: failure.message, retryInMs: delay }, 'server unavailable; will retry');
    this.retryTimer = setTimeout(() => void this.connect(), delay);
    this.retryTimer.unref?.();
  }

  /** The shared connection closed under us (a crash, a dropped stream): reconnect. */
  private lost(connection: Connection): void {
    if (this.connection !== connection || this.stopped) return;
    void this.listenStream?.close();
    this.outage = this.incidentOf(connection.client);
    this.listing.unschedule();
    this.failed(new GatewayError('backend_unavailable', 'the connection closed'));
  }

  /**
   * Drops the connection and connects again now, skipping any backoff wait (the console's
   * reconnect button, `POST /api/admin/sources/{name}/reconnect`). Settles when the attempt ends.
   */
  async reconnect(): Promise<void> {
    if (this.stopped) throw new GatewayError('backend_unavailable', `Server ${this.name} is stopped`);
    await this.reconnectNow();
  }

  private async reconnectNow(): Promise<void> {
    if (this.connecting) return this.connecting;
    clearTimeout(this.retryTimer);
    this.listing.unschedule();
    const old = this.connection;
    this.connection = undefined;
    if (old) {
      // A no-op rather than unsetting: the old connection's close must not trigger a reconnect.
      old.client.onclose = () => {};
      await old.close().catch(() => {});
    }
    return this.connect();
  }
}
