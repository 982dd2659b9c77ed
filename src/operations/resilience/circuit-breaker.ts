/** `closed`: calls flow; `open`: calls fail fast; `half_open`: one probe call may test the source. */
export type BreakerState = 'closed' | 'open' | 'half_open';

/** How a call ended, for the breaker: the source failed, answered, or neither can be told. */
export type CallOutcome = 'failure' | 'success' | 'neutral';

/** Permission to make one call: `probe` when it is the half-open test call. */
export type BreakerPermit = { allowed: true; probe: boolean } | { allowed: false; retryAfterMs: number };

export interface CircuitBreakerOptions {
  /** Consecutive failures that open the circuit. */
  failureThreshold: number;
  /** How long the circuit stays open before a probe may test the source again. */
  cooldownMs: number;
}

/**
 * One circuit breaker's state machine, with time passed in (no timers, no clock of its own).
 * Closed, it counts consecutive failures and opens at the threshold. Open, it refuses calls until
 * the cool-down has passed; the next call is then the probe (half-open) and every other call is
 * refused while it runs. The probe's success closes the circuit, its failure opens it for another
 * cool-down, and a neutral end (cancelled) lets the next call probe.
 */
export class CircuitBreaker {
  private current: BreakerState = 'closed';
  private failures = 0;
  private openedAt = 0;
  private probing = false;
  /** The incident the last counted failure belonged to (see `record`). */
  private lastIncident: string | undefined;

  constructor(private readonly options: CircuitBreakerOptions) {}

  get state(): BreakerState {
    return this.current;
  }

  /** Consecutive failures counted so far (the count that opened the circuit, while open). */
  get consecutiveFailures(): number {
    return this.failures;
  }

  /** Asks to make a call at `now`. An allowed probe must be followed by `record(…, true)`. */
  acquire(now: number): BreakerPermit {
    if (this.current === 'closed') return { allowed: true, probe: false };
    if (this.current === 'open') {
      const waitMs = this.openedAt + this.options.cooldownMs - now;
      if (waitMs > 0) return { allowed: false, retryAfterMs: waitMs };
      this.current = 'half_open';
    }
    if (this.probing) return { allowed: false, retryAfterMs: Math.min(1000, this.options.cooldownMs) };
    this.probing = true;
    return { allowed: true, probe: true };
  }

  /**
   * Records how a call ended; returns the state change it caused, if any. Calls let through
   * before the circuit opened count only while it is closed: a late success of such a call says
   * nothing about whether the source has recovered since. Failures that name the same `incident`
   * (one crash of a server failing every call it had in flight, then every call made while it
   * restarts) count once: one event, not N failures.
   */
  record(
    outcome: CallOutcome,
    probe: boolean,
    now: number,
    incident?: string,
  ): { from: BreakerState; to: BreakerState } | undefined {
    const from = this.current;
    if (outcome === 'failure' && incident !== undefined) {
      if (incident === this.lastIncident && !probe) return undefined;
      this.lastIncident = incident;
    }
    if (probe) {
      this.probing = false;
      if (outcome === 'success') {
        this.current = 'closed';
        this.failures = 0;
      } else if (outcome === 'failure') {
        this.current = 'open';
        this.openedAt = now;
        this.failures++;
      }
    } else if (this.current === 'closed') {
      if (outcome === 'success') this.failures = 0;
      else if (outcome === 'failure' && ++this.failures >= this.options.failureThreshold) {
        this.current = 'open';
        this.openedAt = now;
      }
    }
    return from === this.current ? undefined : { from, to: this.current };
  }

  /**
   * The source says it is back (a downstream server reconnected): an open circuit half-opens at
   * once, without waiting out its cool-down, so the next call is the probe.
   */
  recover(): { from: BreakerState; to: BreakerState } | undefined {
    if (this.current !== 'open') return undefined;
    this.current = 'half_open';
    this.probing = false;
    return { from: 'open', to: 'half_open' };
  }
}
