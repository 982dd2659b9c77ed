/** Reconnection delays: exponential from `minMs` to `maxMs`, each scaled by a random factor in [0.5, 1]. */
export interface BackoffOptions {
  minMs?: number;
  maxMs?: number;
  /** Source of randomness in [0, 1); injectable for tests. */
  random?: () => number;
}

/** The delay before retry number `attempt` (0 for the first retry). */
export function backoffDelay(attempt: number, options: BackoffOptions = {}): number {
  const min = options.minMs ?? 500;
  const max = options.maxMs ?? 30_000;
  const random = options.random ?? Math.random;
  const ceiling = Math.min(max, min * 2 ** Math.max(0, attempt));
  // Jitter keeps many gateways (or many servers of one gateway) from retrying in lockstep.
  return Math.round(ceiling * (0.5 + random() / 2));
}
