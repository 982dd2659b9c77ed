import { GatewayError, toGatewayError } from '../../foundation/model/gateway-error.js';
import type { ToolResult } from '../../foundation/model/tool.js';
import { type Logger, silentLogger } from '../../foundation/ports/logger.js';
import type { RunCall, RunMiddleware } from '../../foundation/ports/run-middleware.js';
import { integerAtLeast } from '../../foundation/util/option-checks.js';
import { type BreakerState, type CallOutcome, CircuitBreaker } from './circuit-breaker.js';

/** The circuit breakers' defaults (the config's `resilience.circuitBreaker` defaults to them). */
export const CIRCUIT_BREAKER_DEFAULTS = Object.freeze({ failureThreshold: 5, cooldownMs: 30_000 });

export interface CircuitBreakersOptions {
  /** Consecutive failures of a source that open its circuit. Default 5. */
  failureThreshold?: number;
  /** How long an open circuit refuses calls before one probe may test the source. Default 30000 ms. */
  cooldownMs?: number;
  /** The clock in milliseconds. Default `Date.now`. */
  now?: () => number;
  /** Called whenever a source's circuit changes state (metrics hook). */
  onStateChange?: (event: BreakerStateChange) => void;
  log?: Logger;
}

/** A source's circuit changed state. */
export interface BreakerStateChange {
  sourceId: string;
  from: BreakerState;
  to: BreakerState;
  consecutiveFailures: number;
}

/**
 * Codes that say the source itself is failing. Not the caller's faults, not `execution_failed`
 * (the tool ran and reported an error: the source is up), not `cancelled`.
 */
const SOURCE_FAILURES: ReadonlySet<string> = new Set(['backend_unavailable', 'timeout', 'internal']);

/** How a call's failure counts for its source's breaker. */
export function outcomeOf(error: unknown): CallOutcome {
  const { code } = toGatewayError(error);
  if (SOURCE_FAILURES.has(code)) return 'failure';
  // Refused for load or cut short by the client: nothing learnt about the source's health.
  if (code === 'cancelled' || code === 'rate_limited') return 'neutral';
  return 'success';
}

/**
 * The incident a failure belongs to, when its source named one (`details.incident`): every call a
 * crash takes down, and every call refused while the source restarts, carry the same one.
 */
export function incidentOf(error: unknown): string | undefined {
  const incident = toGatewayError(error).details?.incident;
  return typeof incident === 'string' ? incident : undefined;
}

/**
 * Circuit breakers, one per downstream source (`tool.origin.sourceId`: an MCP server, an OpenAPI
 * service, an A2A agent, a module). After `failureThreshold` consecutive failures of a source,
 * calls to any of its tools fail at once with `backend_unavailable` (`details.breaker: "open"`,
 * `details.retryAfterMs`) instead of waiting on a source that is down; after `cooldownMs` one
 * probe call goes through, and its success closes the circuit again. Failures of one incident
 * (`details.incident`) count once, and a source that reports itself back (`recovered`) half-opens
 * its circuit at once.
 */
export class CircuitBreakers {
  readonly middleware: RunMiddleware;
  private readonly breakers = new Map<string, CircuitBreaker>();
  private readonly failureThreshold: number;
  private readonly cooldownMs: number;
  private readonly now: () => number;
  private readonly onStateChange: ((event: BreakerStateChange) => void) | undefined;
  private readonly log: Logger;

  constructor(options: CircuitBreakersOptions = {}) {
    this.failureThreshold = integerAtLeast(
      options.failureThreshold ?? CIRCUIT_BREAKER_DEFAULTS.failureThreshold,
      1,
      'circuit breaker failureThreshold',
    );
    this.cooldownMs = integerAtLeast(
      options.cooldownMs ?? CIRCUIT_BREAKER_DEFAULTS.cooldownMs,
      1,
      'circuit breaker cooldownMs',
    );
    this.now = options.now ?? Date.now;
    this.onStateChange = options.onStateChange;
    this.log = options.log ?? silentLogger;
    this.middleware = (call, next) => this.run(call, next);
  }

  /** The state of a source's circuit (`closed` for a source never seen). */
  state(sourceId: string): BreakerState {
    return this.breakers.get(sourceId)?.state ?? 'closed';
  }

  /** Every source seen, with its state and consecutive failures. */
  snapshot(): { sourceId: string; state: BreakerState; consecutiveFailures: number }[] {
    return [...this.breakers].map(([sourceId, breaker]) => ({
      sourceId,
      state: breaker.state,
      consecutiveFailures: breaker.consecutiveFailures,
    }));
  }

  /**
   * The source is back (a downstream server reconnected): its open circuit half-opens now rather
   * than after the cool-down, so recovery takes one probe call, not the rest of the cool-down.
   */
  recovered(sourceId: string): void {
    const breaker = this.breakers.get(sourceId);
    const change = breaker?.recover();
    if (breaker && change) this.changed(sourceId, breaker, change.from, change.to);
  }

  private async run(call: RunCall, next: () => Promise<ToolResult>): Promise<ToolResult> {
    const sourceId = call.tool.origin.sourceId;
    const breaker = this.breakerFor(sourceId);
    const before = breaker.state;
    const permit = breaker.acquire(this.now());
    if (breaker.state !== before) this.changed(sourceId, breaker, before, breaker.state);
    if (!permit.allowed) {
      throw new GatewayError(
        'backend_unavailable',
        `${sourceId} is failing: its circuit is ${breaker.state === 'open' ? 'open' : 'being probed'} after ${breaker.consecutiveFailures} consecutive failures; retry in ${Math.ceil(permit.retryAfterMs / 1000)} s`,
        {
          details: {
            breaker: breaker.state,
            source: sourceId,
            consecutiveFailures: breaker.consecutiveFailures,
            retryAfterMs: permit.retryAfterMs,
          },
        },
      );
    }
    let recorded = false;
    const record = (outcome: CallOutcome, incident?: string) => {
      if (recorded) return;
      recorded = true;
      const change = breaker.record(outcome, permit.probe, this.now(), incident);
      if (change) this.changed(sourceId, breaker, change.from, change.to);
    };
    // A probe that never settles (a backend deaf to its signal) must not hold the circuit
    // half-open for good: the call's end — timeout or cancellation — ends the probe too.
    const signal = call.ctx.signal;
    const onAbort = () => record(outcomeOf(signal.reason));
    if (permit.probe) signal.addEventListener('abort', onAbort, { once: true });
    try {
      const result = await next();
      record('success');
      return result;
    } catch (error) {
      // Once the call's signal aborted, its reason (timeout or cancellation) is what happened,
      // whatever the backend made of the abort.
      const cause = signal.aborted ? signal.reason : error;
      record(outcomeOf(cause), incidentOf(cause));
      throw error;
    } finally {
      if (permit.probe) signal.removeEventListener('abort', onAbort);
    }
  }

  private breakerFor(sourceId: string): CircuitBreaker {
    let breaker = this.breakers.get(sourceId);
    if (!breaker) {
      breaker = new CircuitBreaker({ failureThreshold: this.failureThreshold, cooldownMs: this.cooldownMs });
      this.breakers.set(sourceId, breaker);
    }
    return breaker;
  }

  private changed(sourceId: string, breaker: CircuitBreaker, from: BreakerState, to: BreakerState): void {
    const consecutiveFailures = breaker.consecutiveFailures;
    if (to === 'open') {
      this.log.warn(
        { source: sourceId, consecutiveFailures, cooldownMs: this.cooldownMs },
        'circuit opened: calls to this source fail fast until a probe succeeds',
      );
    } else if (to === 'half_open' && from === 'open') {
      this.log.info({ source: sourceId }, 'circuit half-open: the next call probes the source');
    } else if (to === 'closed') {
      this.log.info({ source: sourceId }, 'circuit closed: the source answers again');
    }
    this.onStateChange?.({ sourceId, from, to, consecutiveFailures });
  }
}

/** Per-source circuit breaking middleware with its states (`circuitBreakers(options).middleware`). */
export function circuitBreakers(options: CircuitBreakersOptions = {}): CircuitBreakers {
  return new CircuitBreakers(options);
}
