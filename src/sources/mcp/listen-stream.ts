import type { Client, McpSubscription, SubscriptionFilter } from '@modelcontextprotocol/client';
import type { Logger } from '../../foundation/ports/logger.js';

export interface ListenStreamOptions {
  /** What to listen for now (read at each (re-)opening). */
  filter: () => SubscriptionFilter;
  /** Whether the stream is still wanted (its connection is the server's current one). */
  wanted: () => boolean;
  log: Logger;
  /** Wait before opening again a stream the server dropped. Default 1000 ms. */
  retryMs?: number;
  /**
   * A stream the server has not acknowledged within this long is given up and tried again later
   * (a server that never acknowledges must not hold every later refresh). Default 10000 ms.
   */
  openTimeoutMs?: number;
}

/**
 * The `subscriptions/listen` stream of a connection to a 2026-07-28 server: the revision's only
 * way to hear of list changes and resource updates (it has no unsolicited notifications and no
 * `resources/subscribe`). Its notifications reach the client's notification handlers like a 2025
 * server's. `refresh` opens it again with the current filter (the sessions' subscriptions
 * changed), the new stream before the old one closes so nothing falls in between; a stream the
 * server drops is opened again while it is wanted.
 */
export class ListenStream {
  private subscription: McpSubscription | undefined;
  /** The filter the open stream was opened with (JSON), to skip a refresh that changes nothing. */
  private openFilter: string | undefined;
  private queue: Promise<void> = Promise.resolve();
  private retry: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly client: Client,
    private readonly options: ListenStreamOptions,
  ) {}

  /**
   * (Re-)opens the stream with the current filter; settles when it is open (or failed, logged).
   * With `waitMs`, settles after that long at the latest (the stream keeps opening): a client's
   * `resources/subscribe` is answered even when the server is slow to acknowledge.
   */
  refresh(waitMs?: number): Promise<void> {
    this.queue = this.queue.then(() => this.open());
    if (waitMs === undefined) return this.queue;
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([
      this.queue,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, waitMs);
        timer.unref();
      }),
    ]).finally(() => clearTimeout(timer));
  }

  /** Ends the stream for good. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const subscription = this.subscription;
    this.subscription = undefined;
    await subscription?.close().catch(() => {});
  }

  private async open(): Promise<void> {
    if (this.closed || !this.options.wanted()) return;
    clearTimeout(this.retry);
    const previous = this.subscription;
    const filter = this.options.filter();
    const key = JSON.stringify(filter);
    // The stream already listens for exactly this (a subscription the server cannot carry).
    if (previous !== undefined && key === this.openFilter) return;
    try {
      if (isEmpty(filter)) {
        this.subscription = undefined;
        this.openFilter = undefined;
        return;
      }
      const subscription = await this.client.listen(filter, {
        timeout: this.options.openTimeoutMs ?? 10_000,
      });
      if (this.closed) {
        await subscription.close();
        return;
      }
      this.subscription = subscription;
      this.openFilter = key;
      void subscription.closed.then((how) => {
        if (how !== 'local' && this.subscription === subscription) {
          this.subscription = undefined;
          this.openFilter = undefined;
          this.again();
        }
      });
    } catch (error) {
      this.options.log.warn({ err: (error as Error).message }, 'subscriptions/listen failed; trying again');
      this.again();
    } finally {
      if (previous && previous !== this.subscription) await previous.close().catch(() => {});
    }
  }

  private again(): void {
    if (this.closed || !this.options.wanted()) return;
    this.retry = setTimeout(() => void this.refresh(), this.options.retryMs ?? 1000);
    this.retry.unref();
  }
}

function isEmpty(filter: SubscriptionFilter): boolean {
  return (
    !filter.toolsListChanged &&
    !filter.promptsListChanged &&
    !filter.resourcesListChanged &&
    (filter.resourceSubscriptions?.length ?? 0) === 0
  );
}
