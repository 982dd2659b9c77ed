import { randomUUID } from 'node:crypto';
import type { Logger } from '../../foundation/ports/logger.js';
import type { RedisConnection } from './redis-connection.js';

/** A downstream server's notification, as one gateway tells the others. */
export interface SharedNotification {
  /** The downstream server's name in the config (the same on every replica). */
  server: string;
  /** `notifications/tools/list_changed`, `notifications/resources/updated`, … */
  method: string;
  params?: Record<string, unknown>;
}

/**
 * Catalog-change and resource-update notifications fanned out over Redis pub/sub: what one
 * gateway's connection to a downstream server heard, the other gateways hear too (within a
 * round trip), each then acting on it with its own connection to that server. Delivery is at
 * most once (pub/sub): a gateway away from Redis when a message passes misses it, and catches up
 * by its own periodic or reconnect re-listing.
 */
export class RedisNotificationBus {
  private readonly id = randomUUID();
  private readonly channel: string;
  private readonly listeners = new Set<(notification: SharedNotification) => void>();
  private closed = false;

  constructor(
    private readonly connection: RedisConnection,
    private readonly log: Logger,
  ) {
    this.channel = `${connection.prefix}notifications`;
    connection.subscriber.on('message', this.onMessage);
    connection.subscriber.subscribe(this.channel).catch((error: unknown) => {
      this.log.debug({ err: (error as Error).message }, 'subscribing to shared notifications failed');
    });
  }

  /** Tells the other gateways; never throws (a notification lost with Redis is not worth a failure). */
  publish(notification: SharedNotification): void {
    if (this.closed) return;
    const message = JSON.stringify({ from: this.id, ...notification });
    this.connection.client.publish(this.channel, message).catch((error: unknown) => {
      this.log.debug(
        { err: (error as Error).message, server: notification.server },
        'notification not shared',
      );
    });
  }

  /** Calls `listener` with every notification another gateway published; returns the unsubscribe. */
  subscribe(listener: (notification: SharedNotification) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.connection.subscriber.off('message', this.onMessage);
    this.connection.subscriber.unsubscribe(this.channel).catch(() => {});
    this.listeners.clear();
  }

  private readonly onMessage = (channel: string, raw: string): void => {
    if (channel !== this.channel || this.closed) return;
    let message: Partial<SharedNotification> & { from?: unknown };
    try {
      message = JSON.parse(raw) as typeof message;
    } catch {
      return;
    }
    if (
      message.from === this.id ||
      typeof message.server !== 'string' ||
      typeof message.method !== 'string'
    ) {
      return;
    }
    const notification: SharedNotification = {
      server: message.server,
      method: message.method,
      ...(message.params && typeof message.params === 'object' ? { params: message.params } : {}),
    };
    for (const listener of [...this.listeners]) {
      try {
        listener(notification);
      } catch (error) {
        this.log.error({ err: (error as Error).message }, 'a shared notification listener failed');
      }
    }
  };
}
