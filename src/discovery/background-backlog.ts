/** What a {@link BackgroundBacklog} works on. */
export interface BacklogWork<T> {
  /** Up to `size` items waiting; empty when nothing is. */
  next(size: number): T[];
  /** Embeds a batch (or whatever the work is); throws to be retried later. */
  run(batch: T[]): Promise<void>;
  /** Told of a failed batch, before the wait for the retry. */
  onFailure?(message: string): void;
  /** Told when nothing waits any more. */
  onDrained?(): void;
}

/**
 * A backlog worked off in the background, a batch at a time: started on `schedule()`, after the
 * caller's synchronous work; a failed batch stops the loop, records the error, and retries the
 * backlog after `retryMs`. The loop behind tool vectors and learned-query vectors alike.
 */
export class BackgroundBacklog<T> {
  private draining: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** The last failure, until a batch succeeds again. */
  lastError: string | undefined;

  constructor(
    private readonly work: BacklogWork<T>,
    private readonly options: { batchSize: number; retryMs: number },
  ) {}

  /** Starts working off the backlog, unless already at it, waiting to retry, or closed. */
  schedule(): void {
    if (this.draining || this.retryTimer || this.closed) return;
    this.draining = this.drain().finally(() => {
      this.draining = undefined;
    });
  }

  /** Resolves when the loop stops: the backlog is empty, or a batch failed (see `lastError`). */
  async whenIdle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  /** Stops after the current batch, and cancels a pending retry. */
  close(): void {
    this.closed = true;
    clearTimeout(this.retryTimer);
  }

  private async drain(): Promise<void> {
    // Let the caller finish its synchronous work (a whole catalog of upserts) first.
    await new Promise((resolve) => setImmediate(resolve));
    for (;;) {
      if (this.closed) return;
      const batch = this.work.next(this.options.batchSize);
      if (batch.length === 0) break;
      try {
        await this.work.run(batch);
      } catch (error) {
        this.lastError = (error as Error).message;
        this.work.onFailure?.(this.lastError);
        this.retryTimer = setTimeout(() => {
          this.retryTimer = undefined;
          this.schedule();
        }, this.options.retryMs);
        this.retryTimer.unref();
        return;
      }
      this.lastError = undefined;
    }
    this.work.onDrained?.();
  }
}

/** The first `count` items of an iterable (a backlog's next batch), without copying the rest. */
export function firstOf<T>(items: Iterable<T>, count: number): T[] {
  const first: T[] = [];
  if (count <= 0) return first;
  for (const item of items) {
    first.push(item);
    if (first.length === count) break;
  }
  return first;
}
