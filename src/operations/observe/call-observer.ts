import type { GatewayError } from '../../foundation/model/gateway-error.js';
import type { RunCall } from '../../foundation/ports/run-middleware.js';

/** How one tool call ended, as the observe middleware saw it. */
export interface CallOutcome {
  /** Milliseconds from entering the middleware to the call's end. */
  durationMs: number;
  /** Set when the call failed (its code says how). */
  error?: GatewayError;
}

/**
 * One consumer of tool-call observations (a span, metrics, a log line). `start` runs when the call
 * enters the observe middleware; the function it returns runs exactly once, when the call ends.
 */
export interface CallObserver {
  start(call: RunCall): (outcome: CallOutcome) => void;
}
