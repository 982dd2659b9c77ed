/**
 * A token bucket: holds up to `capacity` tokens, gains `perMinute` tokens a minute, and each call
 * takes one. A full bucket lets `capacity` calls through at once (the burst), then one every
 * 60000 / perMinute ms. State is two numbers; time comes from the caller (`now`), so the bucket
 * is deterministic under a fake clock.
 */
export class TokenBucket {
  private tokens: number;
  private updatedAt: number;
  private readonly perMs: number;

  constructor(
    readonly capacity: number,
    readonly perMinute: number,
    now: number,
  ) {
    this.tokens = capacity;
    this.updatedAt = now;
    this.perMs = perMinute / 60_000;
  }

  /** Tokens available at `now` (fractional while refilling). */
  available(now: number): number {
    this.refill(now);
    return this.tokens;
  }

  /** Takes one token if there is one; returns whether it did. */
  tryTake(now: number): boolean {
    this.refill(now);
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Takes one token, which the caller knows is there (`available(now) >= 1`). */
  take(now: number): void {
    this.refill(now);
    this.tokens -= 1;
  }

  /** Milliseconds until one token will be available (0 when one is). */
  msUntilToken(now: number): number {
    this.refill(now);
    return this.tokens >= 1 ? 0 : Math.ceil((1 - this.tokens) / this.perMs);
  }

  /** Whether the bucket is full at `now`: it then holds no state worth keeping. */
  isFull(now: number): boolean {
    this.refill(now);
    return this.tokens >= this.capacity;
  }

  private refill(now: number): void {
    const elapsed = now - this.updatedAt;
    if (elapsed <= 0) return;
    this.tokens = Math.min(this.capacity, this.tokens + elapsed * this.perMs);
    this.updatedAt = now;
  }
}
