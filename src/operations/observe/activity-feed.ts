import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { RunMiddleware } from '../../foundation/ports/run-middleware.js';
import { type CallSurface, callerKey } from '../../foundation/ports/tool-backend.js';
import { maskStrings } from '../secrets/secret-masker.js';
import {
  histogramPercentile,
  MINUTE_MS,
  MinuteAggregates,
  type MinuteFigures,
  mergeFigures,
} from './minute-aggregates.js';
import { type RedactOptions, redactArgs } from './redact-args.js';

/** One finished tool call, as the console's live log shows it. */
export interface ActivityEvent {
  /** Monotonic sequence number (what `Last-Event-ID` resumes from). */
  seq: number;
  /** When the call ended (ISO 8601). */
  time: string;
  tool: string;
  caller: string;
  /** The toolset the call ran in, when the caller narrowed to one. */
  toolset?: string;
  /**
   * Where the call came in: `mcp`, `rest`, `a2a`, `code` (a program's calls), or `other` for a
   * caller no surface made (the CLI's own calls).
   */
  surface: CallSurface | 'other';
  durationMs: number;
  /** `ok`, or the failure's GatewayError code. */
  code: string;
  /** The arguments, redacted by the same rules as the call log (`redactArgs`, then the secret masker). */
  args: unknown;
}

/** Options of {@link ActivityFeed}. */
export interface ActivityFeedOptions extends RedactOptions {
  /** Calls kept for late subscribers and per-tool statistics. Default 1000. */
  capacity?: number;
  /** The clock (tests pin it). */
  now?: () => number;
  /**
   * The secret masker (the resolved `${secret:…}` and credential values): applied to every string
   * of the arguments after key-based redaction, as the log redactor applies it to the call log.
   */
  mask?: ((text: string) => string) | undefined;
}

/** One time bucket of {@link ActivityFeed.series}. */
export interface ActivityBucket {
  /** Start of the bucket, ms since the epoch. */
  start: number;
  calls: number;
  errors: number;
  p50Ms: number;
  p95Ms: number;
}

/**
 * Per-tool figures over a window: from the calls themselves while the feed still holds every call
 * of the window, else (more calls than it keeps) counted per minute, with percentiles read from a
 * histogram (within 25%).
 */
export interface ToolActivityStats {
  tool: string;
  calls: number;
  errors: number;
  p50Ms: number;
  p95Ms: number;
}

/**
 * The recent tool calls of the whole gateway, for the console's live log: a middleware records
 * every call when it ends (arguments redacted exactly as the call log redacts them), keeps the last
 * `capacity` of them, and tells subscribers at once. A bounded ring, so an idle console costs a
 * fixed amount of memory however many calls pass.
 */
export class ActivityFeed {
  /** The last `capacity` calls, a ring: the oldest at `oldest`, `held` of them. */
  private readonly ring: ActivityEvent[] = [];
  private oldest = 0;
  private held = 0;
  private readonly listeners = new Set<(event: ActivityEvent) => void>();
  private readonly capacity: number;
  private readonly now: () => number;
  private readonly redact: RedactOptions;
  /** Every call's figures per tool and minute, for the last hour, whatever the ring dropped. */
  private readonly minutes = new MinuteAggregates();
  private seq = 0;

  private readonly mask: ((text: string) => string) | undefined;

  constructor(options: ActivityFeedOptions = {}) {
    this.mask = options.mask;
    this.capacity = Math.max(1, options.capacity ?? 1000);
    this.now = options.now ?? Date.now;
    this.redact = {
      ...(options.maxStringLength === undefined ? {} : { maxStringLength: options.maxStringLength }),
      ...(options.maxItems === undefined ? {} : { maxItems: options.maxItems }),
      ...(options.maxDepth === undefined ? {} : { maxDepth: options.maxDepth }),
    };
  }

  /** The middleware that records every call (put it outermost, so it sees every outcome). */
  readonly middleware: RunMiddleware = async ({ tool, args, ctx }, next) => {
    const started = performance.now();
    let code = 'ok';
    try {
      return await next();
    } catch (error) {
      code = error instanceof GatewayError ? error.code : 'internal';
      throw error;
    } finally {
      const endedAt = this.now();
      this.record(endedAt, {
        time: new Date(endedAt).toISOString(),
        tool: tool.id,
        caller: callerKey(ctx.caller),
        ...(ctx.caller.toolset === undefined ? {} : { toolset: ctx.caller.toolset }),
        surface: ctx.caller.surface ?? 'other',
        durationMs: Math.round((performance.now() - started) * 1000) / 1000,
        code,
        args: this.masked(redactArgs(args, this.redact)),
      });
    }
  };

  /** `args` with every string through the secret masker (the call log's lines get the same). */
  private masked(args: unknown): unknown {
    return this.mask ? maskStrings(args, this.mask) : args;
  }

  /** The calls held, oldest first; with `after`, only those with a larger sequence number. */
  recent(after = 0): ActivityEvent[] {
    return this.events().filter((event) => event.seq > after);
  }

  /** Calls `listener` with every call recorded from now on; returns the unsubscribe function. */
  subscribe(listener: (event: ActivityEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Calls, errors and latency percentiles per tool over the last `windowMs` (at most an hour). */
  stats(windowMs = 3_600_000): ToolActivityStats[] {
    const since = this.now() - windowMs;
    if (!this.holdsSince(since)) {
      const byTool = this.minutes.figures(
        Math.floor(since / MINUTE_MS) * MINUTE_MS,
        Number.POSITIVE_INFINITY,
      );
      return [...byTool].map(([tool, figures]) => ({ tool, ...summary(figures) }));
    }
    const byTool = new Map<string, ActivityEvent[]>();
    for (const event of this.events()) {
      if (Date.parse(event.time) < since) continue;
      const list = byTool.get(event.tool) ?? [];
      list.push(event);
      byTool.set(event.tool, list);
    }
    return [...byTool].map(([tool, list]) => {
      const durations = list.map((e) => e.durationMs).sort((a, b) => a - b);
      return {
        tool,
        calls: list.length,
        errors: list.filter((e) => e.code !== 'ok').length,
        p50Ms: percentile(durations, 0.5),
        p95Ms: percentile(durations, 0.95),
      };
    });
  }

  /**
   * The calls held within `windowMs`, in buckets of `bucketMs` aligned to the clock (oldest first,
   * the current one last, empty ones as zeros), optionally of one tool: what the console charts.
   */
  series(windowMs = 3_600_000, bucketMs = 60_000, tool?: string): ActivityBucket[] {
    const last = Math.floor(this.now() / bucketMs) * bucketMs;
    const count = Math.max(1, Math.ceil(windowMs / bucketMs));
    const first = last - (count - 1) * bucketMs;
    if (!this.holdsSince(first) && bucketMs % MINUTE_MS === 0) {
      return Array.from({ length: count }, (_, i) => {
        const start = first + i * bucketMs;
        return {
          start,
          ...summary(mergeFigures(this.minutes.figures(start, start + bucketMs, tool).values())),
        };
      });
    }
    const durations: number[][] = Array.from({ length: count }, () => []);
    const errors = new Array<number>(count).fill(0);
    for (const event of this.events()) {
      if (tool !== undefined && event.tool !== tool) continue;
      const index = Math.floor((Date.parse(event.time) - first) / bucketMs);
      if (index < 0 || index >= count) continue;
      durations[index]?.push(event.durationMs);
      if (event.code !== 'ok') errors[index] = (errors[index] ?? 0) + 1;
    }
    return durations.map((list, i) => {
      const sorted = list.sort((a, b) => a - b);
      return {
        start: first + i * bucketMs,
        calls: sorted.length,
        errors: errors[i] ?? 0,
        p50Ms: percentile(sorted, 0.5),
        p95Ms: percentile(sorted, 0.95),
      };
    });
  }

  /** Whether the ring still holds every call since `since` (none was dropped that ended after it). */
  private holdsSince(since: number): boolean {
    if (this.seq <= this.capacity) return true;
    const oldest = this.ring[this.oldest];
    return oldest !== undefined && Date.parse(oldest.time) < since;
  }

  /** The calls held, oldest first. */
  private events(): ActivityEvent[] {
    const out: ActivityEvent[] = [];
    for (let i = 0; i < this.held; i++)
      out.push(this.ring[(this.oldest + i) % this.capacity] as ActivityEvent);
    return out;
  }

  private record(endedAt: number, event: Omit<ActivityEvent, 'seq'>): void {
    this.minutes.record(event.tool, endedAt, event.durationMs, event.code !== 'ok');
    this.seq += 1;
    const full: ActivityEvent = { seq: this.seq, ...event };
    // Overwrites the oldest once full: a call costs the same whatever the capacity.
    if (this.held < this.capacity) {
      this.ring[(this.oldest + this.held) % this.capacity] = full;
      this.held += 1;
    } else {
      this.ring[this.oldest] = full;
      this.oldest = (this.oldest + 1) % this.capacity;
    }
    for (const listener of this.listeners) {
      // One broken subscriber (a closed stream) must not lose the event for the others.
      try {
        listener(full);
      } catch {}
    }
  }
}

/** Calls, errors and percentiles of per-minute figures. */
function summary(figures: MinuteFigures): Omit<ToolActivityStats, 'tool'> {
  return {
    calls: figures.calls,
    errors: figures.errors,
    p50Ms: histogramPercentile(figures, 0.5),
    p95Ms: histogramPercentile(figures, 0.95),
  };
}

/** Nearest-rank percentile of sorted values (0 for none). */
function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[index] ?? 0;
}
