import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { SearchObserver } from '../../foundation/ports/operation-observer.js';
import { egressCounts } from '../../foundation/sandbox/egress-tally.js';
import { optionError } from '../../foundation/util/option-checks.js';
import type { ServerQueueObserver } from '../limits/server-queues.js';
import type { CallObserver } from './call-observer.js';

/** Bucket bounds (s) of `server_queue_wait_seconds`: from a slot at once to a `queueMs` of half a minute. */
export const QUEUE_WAIT_BUCKETS_S: readonly number[] = [
  0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
];

/** Bucket bounds (ms) of `tool_exec_duration_ms`: from a cached answer to a minute-long call. */
export const DEFAULT_DURATION_BUCKETS_MS: readonly number[] = [
  0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000,
];

/** Bucket bounds (ms) of `tool_search_duration_ms`: searches take tens of microseconds to milliseconds. */
export const DEFAULT_SEARCH_BUCKETS_MS: readonly number[] = [
  0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250,
];

/** What the health gauge reads of one remote source (the gateway's `readiness().sources`). */
export interface SourceHealth {
  /** `kind:name`, e.g. `mcp:everything`. */
  id: string;
  kind: string;
  state: string;
}

/** Options of {@link createPrometheusMetrics}. */
export interface PrometheusMetricsOptions {
  /** Bounds of the call duration histogram, ascending, in ms. Default {@link DEFAULT_DURATION_BUCKETS_MS}. */
  durationBucketsMs?: readonly number[];
  /** Bounds of the search duration histogram, ascending, in ms. Default {@link DEFAULT_SEARCH_BUCKETS_MS}. */
  searchBucketsMs?: readonly number[];
  /** Also expose the Node process metrics (CPU, memory, event loop lag, GC, handles). Default true. */
  processMetrics?: boolean;
  /** The remote sources at scrape time, for `downstream_server_up`. Default none. */
  sources?: () => readonly SourceHealth[];
  /** The result cache's counters at scrape time, when a cache is configured. */
  cache?: () => CacheCounters | undefined;
  /** The trust gate's counters at scrape time, when trust checks are on. */
  trust?: () => TrustEventCounters | undefined;
}

/** What the trust gate has counted (each new tool version once) and holds back now. */
export interface TrustEventCounters {
  changed: number;
  flagged: number;
  quarantined: number;
}

/** What the result cache has counted since the start. */
export interface CacheCounters {
  hits: number;
  misses: number;
  bypassed: number;
  evictions: number;
  /** Hits and misses by tool id (cacheable tools that were called). */
  byTool?: ReadonlyMap<string, { hits: number; misses: number }>;
}

/** The gateway's metrics and their Prometheus text exposition. */
export interface PrometheusMetrics {
  /** Counts and times tool calls (from the observe middleware). */
  readonly calls: CallObserver;
  /** Times searches. */
  readonly search: SearchObserver;
  /** Each server's queue: `server_queue_depth{server}` and `server_queue_wait_seconds{server}`. */
  readonly queues: ServerQueueObserver;
  /** The `Content-Type` of {@link scrape}'s text. */
  readonly contentType: string;
  /** The Prometheus text exposition of every metric, as `GET /metrics` serves it. */
  scrape(): Promise<string>;
}

/**
 * Metrics with prom-client, in a registry of the gateway's own:
 *
 * - `tool_exec_total{tool, outcome}` — calls by tool id and outcome (`ok` or the error code)
 * - `tool_exec_errors_total{tool, code}` — failed calls
 * - `tool_exec_duration_ms{tool}` — histogram of call durations
 * - `tool_search_duration_ms{strategy}` — histogram of search durations
 * - `downstream_server_up{server, kind}` — 1 while a remote source is connected, else 0
 * - `tool_cache_lookups_total{outcome}` — result cache hits, misses, bypasses (uncacheable tools)
 *   and evictions, when a cache is configured
 * - `tool_cache_tool_lookups_total{tool, outcome}` and `tool_cache_hit_ratio{tool}` — the same
 *   per cacheable tool
 * - `tool_trust_events_total{reason}` — downstream tool versions that changed since they were
 *   trusted, or that the poisoning detector flagged, when trust checks are on
 * - `tools_quarantined` — tools held back now, awaiting approval
 * - `sandbox_egress_total{server, host, decision}` — connections of sandboxed servers through
 *   their egress proxy, `allowed` or `refused` (docs/SANDBOX.md)
 * - `server_queue_depth{server}` — calls waiting for a slot of a downstream server now
 * - `server_queue_wait_seconds{server, outcome}` — histogram of those waits (`run`: got a slot,
 *   `rate_limited`: gave up after `queueMs`)
 * - the Node process metrics (`process_*`, `nodejs_*`), unless `processMetrics: false`
 *
 * Labels are bounded: tool ids by the catalog, codes by the closed code set, servers by the
 * config. Nothing is labelled by arguments or caller identities, which are unbounded.
 */
export function createPrometheusMetrics(options: PrometheusMetricsOptions = {}): PrometheusMetrics {
  const durationBuckets = checkBuckets(
    options.durationBucketsMs ?? DEFAULT_DURATION_BUCKETS_MS,
    'durationBucketsMs',
  );
  const searchBuckets = checkBuckets(options.searchBucketsMs ?? DEFAULT_SEARCH_BUCKETS_MS, 'searchBucketsMs');
  const registry = new Registry();
  const calls = new Counter({
    name: 'tool_exec_total',
    help: 'Tool calls that reached execution, by tool id and outcome (ok, or the error code).',
    labelNames: ['tool', 'outcome'] as const,
    registers: [registry],
  });
  const errors = new Counter({
    name: 'tool_exec_errors_total',
    help: 'Tool calls that failed, by tool id and error code.',
    labelNames: ['tool', 'code'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'tool_exec_duration_ms',
    help: 'Duration of tool calls in milliseconds, by tool id.',
    labelNames: ['tool'] as const,
    buckets: [...durationBuckets],
    registers: [registry],
  });
  const searchDuration = new Histogram({
    name: 'tool_search_duration_ms',
    help: 'Duration of tool searches in milliseconds, by ranking strategy.',
    labelNames: ['strategy'] as const,
    buckets: [...searchBuckets],
    registers: [registry],
  });
  const sources = options.sources;
  new Gauge({
    name: 'downstream_server_up',
    help: 'Whether a remote source (MCP server, OpenAPI service, A2A agent) is connected: 1 yes, 0 no.',
    labelNames: ['server', 'kind'] as const,
    registers: [registry],
    collect() {
      // Read at scrape time, so a server removed from the config does not linger.
      this.reset();
      for (const source of sources?.() ?? []) {
        const server = source.id.startsWith(`${source.kind}:`)
          ? source.id.slice(source.kind.length + 1)
          : source.id;
        this.set({ server, kind: source.kind }, source.state === 'connected' ? 1 : 0);
      }
    },
  });
  new Counter({
    name: 'sandbox_egress_total',
    help: 'Connections of sandboxed servers through their egress proxy, by server, host:port and decision.',
    labelNames: ['server', 'host', 'decision'] as const,
    registers: [registry],
    collect() {
      // The proxies count (foundation/sandbox/egress-tally.ts); copied at scrape time.
      this.reset();
      for (const { server, host, decision, count } of egressCounts())
        this.inc({ server, host, decision }, count);
    },
  });
  const cache = options.cache;
  if (cache) {
    new Counter({
      name: 'tool_cache_lookups_total',
      help: 'Result cache outcomes: hit, miss, bypass (a tool that is never cached) and eviction.',
      labelNames: ['outcome'] as const,
      registers: [registry],
      collect() {
        // The cache keeps the counts; they are copied at scrape time.
        const counts = cache();
        if (!counts) return;
        this.reset();
        this.inc({ outcome: 'hit' }, counts.hits);
        this.inc({ outcome: 'miss' }, counts.misses);
        this.inc({ outcome: 'bypass' }, counts.bypassed);
        this.inc({ outcome: 'eviction' }, counts.evictions);
      },
    });
    new Counter({
      name: 'tool_cache_tool_lookups_total',
      help: 'Result cache hits and misses by tool id.',
      labelNames: ['tool', 'outcome'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const [tool, counts] of cache()?.byTool ?? []) {
          this.inc({ tool, outcome: 'hit' }, counts.hits);
          this.inc({ tool, outcome: 'miss' }, counts.misses);
        }
      },
    });
    new Gauge({
      name: 'tool_cache_hit_ratio',
      help: 'Share of cacheable calls of a tool answered from the result cache (0 to 1).',
      labelNames: ['tool'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const [tool, { hits, misses }] of cache()?.byTool ?? []) {
          if (hits + misses > 0) this.set({ tool }, hits / (hits + misses));
        }
      },
    });
  }
  const trust = options.trust;
  if (trust) {
    new Counter({
      name: 'tool_trust_events_total',
      help: 'Downstream tool versions held untrusted: changed since trusted, or flagged as poisoning.',
      labelNames: ['reason'] as const,
      registers: [registry],
      collect() {
        // The gate keeps the counts; they are copied at scrape time.
        const counts = trust();
        if (!counts) return;
        this.reset();
        this.inc({ reason: 'changed' }, counts.changed);
        this.inc({ reason: 'flagged' }, counts.flagged);
      },
    });
    new Gauge({
      name: 'tools_quarantined',
      help: 'Tools held back now (trust.mode: quarantine) until an operator approves them.',
      registers: [registry],
      collect() {
        this.set(trust()?.quarantined ?? 0);
      },
    });
  }
  const queueDepth = new Gauge({
    name: 'server_queue_depth',
    help: 'Calls waiting for a slot of a downstream server (servers.<name>.maxConcurrent) now.',
    labelNames: ['server'] as const,
    registers: [registry],
  });
  const queueWait = new Histogram({
    name: 'server_queue_wait_seconds',
    help: 'How long calls waited for a slot of a downstream server: run (got one) or rate_limited (gave up).',
    labelNames: ['server', 'outcome'] as const,
    buckets: [...QUEUE_WAIT_BUCKETS_S],
    registers: [registry],
  });
  const processRegistry = options.processMetrics === false ? undefined : sharedProcessRegistry();

  return {
    calls: {
      start:
        ({ tool }) =>
        ({ durationMs, error }) => {
          const outcome = error ? error.code : 'ok';
          calls.inc({ tool: tool.id, outcome });
          if (error) errors.inc({ tool: tool.id, code: error.code });
          duration.observe({ tool: tool.id }, durationMs);
        },
    },
    search: {
      start(info) {
        const started = performance.now();
        return () => searchDuration.observe({ strategy: info.strategy }, performance.now() - started);
      },
    },
    queues: {
      depth: (server, waiting) => queueDepth.set({ server }, waiting),
      waited: (server, seconds, timedOut) =>
        queueWait.observe({ server, outcome: timedOut ? 'rate_limited' : 'run' }, seconds),
    },
    contentType: registry.contentType,
    async scrape() {
      const own = await registry.metrics();
      return processRegistry ? `${own}\n${await processRegistry.metrics()}` : own;
    },
  };
}

let processRegistry: Registry | undefined;

/**
 * The process metrics describe the process, not a gateway, so they are collected once per process
 * and shared: prom-client's collector installs a GC observer that is never removed, and one per
 * gateway would pile up where many gateways are built (tests, embedding applications).
 */
function sharedProcessRegistry(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

function checkBuckets(buckets: readonly number[], label: string): readonly number[] {
  const ascending = buckets.every(
    (b, i) => Number.isFinite(b) && b > 0 && (i === 0 || b > (buckets[i - 1] ?? 0)),
  );
  if (buckets.length === 0 || !ascending) {
    throw optionError(
      label,
      `must be a non-empty list of ascending numbers > 0, got [${buckets.join(', ')}]`,
    );
  }
  return buckets;
}
