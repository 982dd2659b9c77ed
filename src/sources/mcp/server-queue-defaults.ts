/**
 * Calls one downstream server runs at once by default (`servers.<name>.maxConcurrent`): enough for
 * the parallel calls of several agents, few enough that a burst cannot take every socket or the
 * whole capacity of a stdio server (most answer one request at a time anyway).
 */
export const DEFAULT_MAX_CONCURRENT = 16;

/**
 * How long a call beyond that bound waits for a slot by default (`servers.<name>.queueMs`) before
 * it answers `rate_limited` with `retryAfterMs`.
 */
export const DEFAULT_QUEUE_MS = 10_000;
