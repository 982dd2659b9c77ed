import type { LoggingLevel } from '@modelcontextprotocol/client';
import { LoggingLevelSchema } from '@modelcontextprotocol/core';
import type { ClientChannel } from '../../foundation/ports/client-channel.js';
import type { Logger } from '../../foundation/ports/logger.js';

/** Sends one request on the shared connection (and waits for its empty result). */
export type SharedRequest = (method: string, params: Record<string, unknown>) => Promise<unknown>;

export interface SharedConnectionStateOptions {
  /** Sends on the shared connection; fails (`backend_unavailable`) while the server is down. */
  send: SharedRequest;
  /** Whether the shared connection is up now (a level is not sent to a server that is down). */
  connected: () => boolean;
  log: Logger;
}

/**
 * What the sessions sharing one downstream connection have asked of it, merged: resource
 * subscriptions, counted per URI so one session leaving does not end a subscription the others
 * hold (session links come and go; a subscription must outlive them), and the log level — the most
 * verbose any session wants (each session still filters what it receives at its own level). A new
 * connection knows nothing of either: `restore` asks again.
 */
export class SharedConnectionState {
  private readonly subscriptions = new Map<string, number>();
  /** Log level per session sharing the connection, and the level last sent. */
  private readonly levels = new Map<string, LoggingLevel>();
  private appliedLevel: LoggingLevel | undefined;

  constructor(private readonly options: SharedConnectionStateOptions) {}

  /** The URIs some session is subscribed to. */
  uris(): string[] {
    return [...this.subscriptions.keys()];
  }

  /** How many sessions hold a subscription to `uri`. */
  subscribers(uri: string): number {
    return this.subscriptions.get(uri) ?? 0;
  }

  /**
   * Counts one session in (`on`) or out of `uri`'s subscription; the first in sends
   * `resources/subscribe`, the last out `resources/unsubscribe`.
   */
  async subscription(uri: string, on: boolean): Promise<void> {
    const count = this.subscriptions.get(uri) ?? 0;
    const next = Math.max(0, count + (on ? 1 : -1));
    if (next === 0) this.subscriptions.delete(uri);
    else this.subscriptions.set(uri, next);
    if ((on && count === 0) || (!on && count === 1)) {
      await this.options.send(on ? 'resources/subscribe' : 'resources/unsubscribe', { uri });
    }
  }

  /** Sets the level `channel`'s session asked for; forgotten when the session closes. */
  async setLogLevel(channel: ClientChannel, level: LoggingLevel): Promise<void> {
    const key = channel.session.key;
    if (!this.levels.has(key)) {
      channel.onClose(() => {
        this.levels.delete(key);
        void this.applyLevel().catch(() => {});
      });
    }
    this.levels.set(key, level);
    await this.applyLevel();
  }

  /** The level the shared connection should run at: the most verbose asked for; none when no one asked. */
  mergedLevel(): LoggingLevel | undefined {
    const order = LoggingLevelSchema.options;
    const levels = [...this.levels.values()];
    if (levels.length === 0) return undefined;
    return order[Math.min(...levels.map((level) => order.indexOf(level)))];
  }

  /**
   * A new shared connection is up: re-subscribes every URI over `request` (the new connection,
   * directly; a failure is logged) and sends the merged level again in the background.
   */
  restore(request: SharedRequest): void {
    for (const uri of this.subscriptions.keys()) {
      request('resources/subscribe', { uri }).catch((error) =>
        this.options.log.warn({ uri, err: String(error) }, 're-subscribing failed'),
      );
    }
    this.appliedLevel = undefined;
    void this.applyLevel().catch(() => {});
  }

  private async applyLevel(): Promise<void> {
    const level = this.mergedLevel();
    if (level === undefined || level === this.appliedLevel || !this.options.connected()) return;
    await this.options.send('logging/setLevel', { level });
    this.appliedLevel = level;
  }
}
