import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { RunMiddleware } from '../../foundation/ports/run-middleware.js';

/** How many calls one server runs at once, and how long a call beyond that may wait for a slot. */
export interface ServerQueueLimits {
  /** Calls running on the server at once at most (≥ 1). */
  maxConcurrent: number;
  /** How long a call waits in the server's queue before `rate_limited`; 0: it does not wait. */
  queueMs: number;
}

/** Told of each server's queue: its depth whenever it changes, and each wait that ended. */
export interface ServerQueueObserver {
  depth(server: string, waiting: number): void;
  /** A queued call left the queue after `seconds`: it got a slot, or (`timedOut`) gave up. */
  waited(server: string, seconds: number, timedOut: boolean): void;
}

/** Options of {@link serverQueues}. */
export interface ServerQueuesOptions {
  /**
   * The limits of the server behind a source id (`mcp:<name>`), read on every call (a reload
   * applies from the next call); undefined: calls to that source are not queued.
   */
  limitsOf(sourceId: string): ServerQueueLimits | undefined;
  observer?: ServerQueueObserver | undefined;
  now?: () => number;
}

/** What {@link serverQueues} holds now, per server (`/readyz`, tests). */
export interface ServerQueueState {
  running: number;
  waiting: number;
}

/** The queues of every server, as a run middleware. */
export interface ServerQueues {
  readonly middleware: RunMiddleware;
  /** Running and waiting calls, by server name; servers with neither are absent. */
  snapshot(): Record<string, ServerQueueState>;
}

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

class ServerQueue {
  running = 0;
  readonly waiting: Waiter[] = [];
  /** Recent call duration (exponentially weighted), for `retryAfterMs`. */
  typicalMs: number | undefined;
}

/** Weight of the latest call in the typical duration. */
const EWMA_WEIGHT = 0.2;

/**
 * A fair queue per downstream server: at most `maxConcurrent` calls of one server run at once,
 * the others wait first come, first served, for at most `queueMs`, and then answer `rate_limited`
 * with `details.retryAfterMs` (when a running call of that server typically ends). Each server has
 * its own queue: a slow or busy server never delays calls to another, and a burst at one server
 * cannot take every connection, socket or child process of the gateway. A queued call the client
 * cancels leaves the queue at once. Placed innermost in the call policies: a cache hit takes no
 * slot, and each retry queues again (a retry does not jump the queue).
 */
export function serverQueues(options: ServerQueuesOptions): ServerQueues {
  const queues = new Map<string, ServerQueue>();
  const now = options.now ?? (() => performance.now());
  const observer = options.observer;

  const release = (queue: ServerQueue) => {
    const next = queue.waiting.shift();
    if (next) {
      next.resolve();
    } else {
      // Kept when idle (one per configured server): its typical duration answers `retryAfterMs`.
      queue.running--;
    }
  };

  const acquire = async (
    server: string,
    queue: ServerQueue,
    limits: ServerQueueLimits,
    signal: AbortSignal,
  ) => {
    if (queue.running < limits.maxConcurrent && queue.waiting.length === 0) {
      queue.running++;
      return;
    }
    const retryAfterMs = Math.max(50, Math.round(queue.typicalMs ?? limits.queueMs));
    const full = () =>
      new GatewayError(
        'rate_limited',
        `Server ${server} is busy: ${limits.maxConcurrent} call${limits.maxConcurrent === 1 ? '' : 's'} running, ${queue.waiting.length} waiting${limits.queueMs > 0 ? `, none freed within ${limits.queueMs} ms` : ''}; retry in ${Math.ceil(retryAfterMs / 1000)} s`,
        { details: { retryAfterMs, server, maxConcurrent: limits.maxConcurrent, queueMs: limits.queueMs } },
      );
    if (limits.queueMs === 0) throw full();
    const queuedAt = now();
    await new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const leave = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        const at = queue.waiting.indexOf(waiter);
        if (at >= 0) queue.waiting.splice(at, 1);
        observer?.depth(server, queue.waiting.length);
      };
      const waiter: Waiter = {
        // The slot is handed over by `release` (running stays counted).
        resolve: () => {
          leave();
          observer?.waited(server, (now() - queuedAt) / 1000, false);
          resolve();
        },
        reject,
      };
      const onAbort = () => {
        leave();
        reject(new GatewayError('cancelled', `Call cancelled while waiting for server ${server}`));
      };
      timer = setTimeout(() => {
        const error = full();
        leave();
        observer?.waited(server, (now() - queuedAt) / 1000, true);
        reject(error);
      }, limits.queueMs);
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      queue.waiting.push(waiter);
      observer?.depth(server, queue.waiting.length);
    });
  };

  const middleware: RunMiddleware = async (call, next) => {
    const sourceId = call.tool.origin.sourceId;
    const limits = options.limitsOf(sourceId);
    if (!limits) return next();
    const server = sourceId.startsWith('mcp:') ? sourceId.slice(4) : sourceId;
    let queue = queues.get(server);
    if (!queue) {
      queue = new ServerQueue();
      queues.set(server, queue);
    }
    await acquire(server, queue, limits, call.ctx.signal);
    const started = now();
    try {
      return await next();
    } finally {
      const took = now() - started;
      queue.typicalMs =
        queue.typicalMs === undefined ? took : queue.typicalMs + EWMA_WEIGHT * (took - queue.typicalMs);
      release(queue);
    }
  };

  return {
    middleware,
    snapshot: () =>
      Object.fromEntries(
        [...queues]
          .filter(([, queue]) => queue.running > 0 || queue.waiting.length > 0)
          .map(([server, queue]) => [server, { running: queue.running, waiting: queue.waiting.length }]),
      ),
  };
}
