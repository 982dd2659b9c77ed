import type { ToolResult } from '../../foundation/model/tool.js';
import type { RunCall, RunMiddleware } from '../../foundation/ports/run-middleware.js';
import { integerAtLeast } from '../../foundation/util/option-checks.js';
import { isRetryable, retryAfterMs } from './retry-policy.js';

/** The retry defaults (the config's `resilience.retries` defaults to them). */
export const RETRY_DEFAULTS = Object.freeze({ maxRetries: 2, baseDelayMs: 100, maxDelayMs: 2000 });

export interface RetryOptions {
  /**
   * Tries after the first. Default 2: three tries in all ride over a dropped connection or a
   * restart in under a second with the default delays, while more would multiply the load on a
   * downstream that is really down (the circuit breaker handles those).
   */
  maxRetries?: number;
  /** Delay before the first retry; doubled for each further one. Default 100 ms. */
  baseDelayMs?: number;
  /** The most one delay may be; an error asking for a longer wait (`retryAfterMs`) is not retried. Default 2000 ms. */
  maxDelayMs?: number;
  /** Uniform random numbers in [0, 1) for the jitter. Default `Math.random`. */
  random?: () => number;
  /** Called before each retry (metrics and logs). */
  onRetry?: (event: RetryEvent) => void;
}

/** One retry about to happen. */
export interface RetryEvent {
  toolId: string;
  /** 1 for the first retry. */
  retry: number;
  delayMs: number;
  /** The code of the failure being retried. */
  code: string;
}

/**
 * Retries: a run middleware that tries a read-only or idempotent tool again after a retryable
 * failure (`retry-policy.ts`), with exponential backoff and jitter, at most `maxRetries` times,
 * and never once the call's signal aborted (its timeout passed or its client cancelled it).
 */
export function retry(options: RetryOptions = {}): RunMiddleware {
  const maxRetries = integerAtLeast(options.maxRetries ?? RETRY_DEFAULTS.maxRetries, 0, 'retry maxRetries');
  const baseDelayMs = integerAtLeast(
    options.baseDelayMs ?? RETRY_DEFAULTS.baseDelayMs,
    0,
    'retry baseDelayMs',
  );
  const maxDelayMs = integerAtLeast(options.maxDelayMs ?? RETRY_DEFAULTS.maxDelayMs, 0, 'retry maxDelayMs');
  const random = options.random ?? Math.random;
  const { onRetry } = options;

  return async (call: RunCall, next: () => Promise<ToolResult>): Promise<ToolResult> => {
    for (let retries = 0; ; retries++) {
      try {
        return await next();
      } catch (error) {
        const { signal } = call.ctx;
        if (retries >= maxRetries || signal.aborted || !isRetryable(call.tool, error)) throw error;
        const asked = retryAfterMs(error);
        if (asked !== undefined && asked > maxDelayMs) throw error;
        const delayMs = Math.max(asked ?? 0, backoffDelay(retries, baseDelayMs, maxDelayMs, random));
        onRetry?.({ toolId: call.tool.id, retry: retries + 1, delayMs, code: codeOf(error) });
        if (!(await sleep(delayMs, signal))) throw error;
      }
    }
  };
}

/**
 * The wait before retry `n` (0-based): `base · 2ⁿ` capped at `max`, half of it fixed and half
 * random ("equal jitter"). The fixed half keeps retries from coming back at once to a server
 * that is restarting; the random half keeps the callers of one failing server from retrying in
 * lockstep.
 */
export function backoffDelay(n: number, baseMs: number, maxMs: number, random: () => number): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** n);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** Waits `ms`; resolves false at once if `signal` aborts first. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'internal';
}
