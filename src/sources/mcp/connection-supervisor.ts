import type { Client, ClientCapabilities } from '@modelcontextprotocol/client';
import { GatewayError, toGatewayError } from '../../foundation/model/gateway-error.js';
import type { Logger } from '../../foundation/ports/logger.js';
import { backoffDelay } from './backoff.js';
import { isStreamSessionLost } from './call-failure.js';
import { type Connection, type DownstreamTarget, openConnection } from './open-connection.js';
import { isPermanentFailure } from './spawn-failure.js';
import { DEFAULT_STARTUP_TIMEOUT_MS } from './startup-timeout.js';
import { StderrRing } from './stderr-ring.js';

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

/** One change of a server's state: to what, when (ISO 8601), and why when it failed. */
export interface StateTransition {
  state: DownstreamState;
  at: string;
  reason?: string;
}

/** State changes kept per server. */
const MAX_TRANSITIONS = 10;

/** Opens one connection to the server (the shared one, or a session's link). */
export type OpenConnection = (
  capabilities: ClientCapabilities,
  prepare: ((client: Client) => void) | undefined,
  log: Logger,
  /** `legacy`: the 2025 handshake even to a server that speaks both eras (`ConnectOptions.era`). */
  era?: 'legacy',
) => Promise<Connection>;

/** Why the shared connection stopped being the current one. */
export type DownReason = 'lost' | 'replaced' | 'stopped';

export interface ConnectionSupervisorOptions {
  /** The key in `servers`. */
  name: string;
  /** `mcp:<name>`: outages are named after it. */
  sourceId: string;
  target: DownstreamTarget;
  clientInfo: { name: string; version: string };
  log: Logger;
  /** Backoff bounds (tests shorten them). */
  backoff?: { minMs?: number; maxMs?: number };
  /** How long one connection attempt (start + initialize) may take; default {@link DEFAULT_STARTUP_TIMEOUT_MS}. */
  connectTimeoutMs?: number;
  /** What the shared connection declares. */
  capabilities: ClientCapabilities;
  /** Sets up the shared connection's client before it initialises (its handlers). */
  prepare: (client: Client) => void;
  /**
   * Readies a fresh shared connection before it counts as up (lists its tools); a rejection fails
   * the attempt, which is retried with backoff.
   */
  establish: (connection: Connection) => Promise<void>;
  /** The shared connection is up (after `establish`): start what runs on it. */
  up: (connection: Connection) => void;
  /** The shared connection is no longer the current one: stop what ran on it. */
  down: (reason: DownReason) => void;
  /** Opens a supervised connection by other means (tests); default `openConnection`. */
  openConnection?: typeof openConnection;
}

/**
 * Keeps one downstream server's shared connection up: connected in the background, re-connected
 * with exponential backoff whenever it fails (a stdio server that exits is restarted), replaced on
 * demand (`reconnect`), closed by `stop`. It also opens the server's other connections (session
 * links) with the same target and stop signal, numbering every connection so that an outage is
 * named after the connection it ended (`incidentOf`), and keeps the server's last stderr lines.
 */
export class ConnectionSupervisor {
  private current: Connection | undefined;
  private connecting: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private attempt = 0;
  /** The tool count is the listing's (`DownstreamServer.snapshot`). */
  private readonly status: Omit<DownstreamStatus, 'tools'> = { state: 'connecting', failures: 0 };
  /** The last stderr lines of the server's processes (stdio), for the console. */
  private readonly stderr = new StderrRing();
  /** When the current shared connection was made (undefined while not connected). */
  private connectedAt: Date | undefined;
  /** Every connection opened gets a number; an outage is named after the connection it ended. */
  private readonly connectionIds = new WeakMap<Client, number>();
  private nextConnectionId = 0;
  /** The outage the server is in (`incident` of the failures it causes), while it is down. */
  private outage: string;
  /** The last state changes, oldest first (`transitions`). */
  private readonly history: StateTransition[] = [{ state: 'connecting', at: new Date().toISOString() }];
  /** The replacement of a connection whose session was lost, while it runs. */
  private replacing: Promise<void> | undefined;
  /** Connections whose session the server forgot (`sessionLost`). */
  private readonly lostSessions = new WeakSet<Client>();
  /** Aborted by `stop()`: connection attempts in flight give up. */
  private readonly stopping = new AbortController();
  /** Settles when the first connection attempt has finished, whatever its outcome. */
  readonly firstAttempt: Promise<void>;

  constructor(private readonly options: ConnectionSupervisorOptions) {
    this.outage = `${options.sourceId}#start`;
    this.firstAttempt = this.connect();
  }

  /** The shared connection while it is established (undefined while down). */
  get connection(): Connection | undefined {
    return this.current;
  }

  get state(): DownstreamState {
    return this.status.state;
  }

  /** The status without the tool count. */
  snapshot(): Omit<DownstreamStatus, 'tools'> {
    return { ...this.status };
  }

  /** The server's last state changes, oldest first (`/readyz`, the console's servers page). */
  transitions(): StateTransition[] {
    return this.history.map((transition) => ({ ...transition }));
  }

  /** Moves to `state`, remembering the change (not a repeat: a retry that fails again is no change). */
  private enter(state: DownstreamState, reason?: string): void {
    if (this.status.state === state && this.history.length > 0) return;
    this.status.state = state;
    this.history.push({ state, at: new Date().toISOString(), ...(reason === undefined ? {} : { reason }) });
    if (this.history.length > MAX_TRANSITIONS) this.history.shift();
  }

  /** Since when the current connection is up, and the server's last stderr lines. */
  details(): { connectedAt?: string; stderr: string[] } {
    return {
      ...(this.connectedAt && this.status.state === 'connected'
        ? { connectedAt: this.connectedAt.toISOString() }
        : {}),
      stderr: this.stderr.recent(),
    };
  }

  /** The error a call gets while the server is down. */
  unavailable(): GatewayError {
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

  /** The incident named after `client`'s connection ending (or the current outage). */
  incidentOf(client: Client | undefined): string {
    const id = client ? this.connectionIds.get(client) : undefined;
    return id === undefined ? this.outage : `${this.options.sourceId}#${id}`;
  }

  /** Opens a connection to the server (a session link, or the shared one), numbered. */
  readonly open: OpenConnection = async (capabilities, prepare, log, era) => {
    const id = ++this.nextConnectionId;
    const connection = await (this.options.openConnection ?? openConnection)(this.options.target, {
      clientInfo: this.options.clientInfo,
      capabilities,
      ...(prepare ? { prepare } : {}),
      log,
      timeoutMs: this.options.connectTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS,
      signal: this.stopping.signal,
      onStderr: (line) => this.stderr.push(line),
      ...(era ? { era } : {}),
    });
    this.connectionIds.set(connection.client, id);
    return connection;
  };

  /**
   * Drops the connection and connects again now, skipping any backoff wait. Settles when the
   * attempt ends; rejects once stopped.
   */
  async reconnect(): Promise<void> {
    if (this.stopped) throw new GatewayError('backend_unavailable', `Server ${this.options.name} is stopped`);
    await this.reconnectNow();
  }

  /**
   * The server forgot the session of `client`'s connection (it answered 404, or the connection's
   * event stream could not be resumed: it restarted). When that is still the shared connection it
   * is initialised again now, and `client` is remembered as lost ({@link lostSession}): its calls
   * still in flight fail as the server's restart, not as a crash. A connection already replaced
   * (another call noticed first) is not replaced again: this waits for the attempt in progress.
   */
  async sessionLost(client: Client): Promise<void> {
    if (this.stopped) return;
    if (this.current?.client !== client) {
      await (this.replacing ?? this.connecting);
      return;
    }
    this.lostSessions.add(client);
    this.options.log.info({ server: this.options.name }, 'downstream session lost; re-initialising');
    // Set at once: a call noticing the same loss meanwhile waits for this replacement.
    const replacing = this.reconnectNow().finally(() => {
      if (this.replacing === replacing) this.replacing = undefined;
    });
    this.replacing = replacing;
    await replacing;
  }

  /** Whether `client`'s connection ended because the server forgot its session. */
  lostSession(client: Client): boolean {
    return this.lostSessions.has(client);
  }

  /** {@link reconnect}, for a call that found the server's session gone (not refused when stopped). */
  async reconnectNow(): Promise<void> {
    if (this.connecting) return this.connecting;
    clearTimeout(this.retryTimer);
    this.options.down('replaced');
    const old = this.current;
    this.current = undefined;
    if (old) {
      // A no-op rather than unsetting: the old connection's close must not trigger a reconnect.
      old.client.onclose = () => {};
      await old.close().catch(() => {});
    }
    return this.connect();
  }

  /**
   * Stops supervising: an attempt in flight (a slow server's `initialize`) is abandoned, its
   * process stopped, rather than waited for up to its connect timeout; the shared connection and
   * whatever `alsoClose` closes (the session links) are closed together.
   */
  async stop(alsoClose: () => Promise<unknown> = async () => {}): Promise<void> {
    this.stopped = true;
    this.enter('stopped');
    clearTimeout(this.retryTimer);
    this.stopping.abort();
    this.options.down('stopped');
    await this.connecting?.catch(() => {});
    const connection = this.current;
    this.current = undefined;
    await Promise.allSettled([connection?.close(), alsoClose()]);
  }

  /** One connection attempt; on failure the next one is scheduled with backoff. */
  private connect(): Promise<void> {
    // A server being retried stays `failed` (with its last error) until a retry succeeds.
    if (this.status.failures === 0) this.enter('connecting');
    const attempt = (async () => {
      try {
        const connection = await this.open(this.options.capabilities, this.options.prepare, this.options.log);
        if (this.stopped) {
          await connection.close();
          return;
        }
        this.current = connection;
        connection.client.onclose = () => this.lost(connection);
        // A server that restarted ends the connection's event stream, and resuming it answers 404:
        // calls in flight on it would wait for answers that never come. Initialise again now.
        connection.client.onerror = (error) => {
          if (isStreamSessionLost(error)) void this.sessionLost(connection.client);
        };
        await this.options.establish(connection);
        this.status.transport = connection.transport;
        if (connection.protocolVersion) this.status.protocolVersion = connection.protocolVersion;
        else delete this.status.protocolVersion;
        this.enter('connected');
        this.connectedAt = new Date();
        this.status.failures = 0;
        delete this.status.lastError;
        this.attempt = 0;
        this.options.up(connection);
      } catch (error) {
        this.failed(error);
      }
    })();
    this.connecting = attempt.finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private failed(error: unknown): void {
    const failure = toGatewayError(error);
    const connection = this.current;
    this.current = undefined;
    void connection?.close().catch(() => {});
    if (this.stopped) return;
    this.status.failures++;
    this.status.lastError = {
      code: failure.code,
      message: failure.message,
      ...(failure.code === 'auth_required' && failure.details ? { details: failure.details } : {}),
    };
    this.enter('failed', failure.message);
    const permanent = isPermanentFailure(error);
    if (permanent) {
      // Retrying cannot make a missing command appear: the server stays failed, with the reason
      // naming the command, until `reconnect` (or a reload that changes its entry: a new
      // supervisor) tries again.
      this.status.lastError = { code: permanent.code, message: permanent.message };
      this.options.log.warn(
        { err: permanent.message },
        'server failed; not retrying (reconnect, or fix its entry and reload, to try again)',
      );
      return;
    }
    const delay = backoffDelay(this.attempt++, this.options.backoff);
    this.options.log.warn({ err: failure.message, retryInMs: delay }, 'server unavailable; will retry');
    this.retryTimer = setTimeout(() => void this.connect(), delay);
    this.retryTimer.unref?.();
  }

  /** The shared connection closed under us (a crash, a dropped stream): reconnect. */
  private lost(connection: Connection): void {
    if (this.current !== connection || this.stopped) return;
    this.outage = this.incidentOf(connection.client);
    this.options.down('lost');
    this.failed(new GatewayError('backend_unavailable', 'the connection closed'));
  }
}
