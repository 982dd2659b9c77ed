import type { Attributes, ObservableResult } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import type { Logger } from '../../foundation/ports/logger.js';
import type { SearchObserver } from '../../foundation/ports/operation-observer.js';
import { egressCounts } from '../../foundation/sandbox/egress-tally.js';
import type { ServerQueueObserver } from '../limits/server-queues.js';
import type { CallObserver } from './call-observer.js';
import {
  type CacheCounters,
  DEFAULT_DURATION_BUCKETS_MS,
  DEFAULT_SEARCH_BUCKETS_MS,
  QUEUE_WAIT_BUCKETS_S,
  type SourceHealth,
  type TrustEventCounters,
} from './prometheus-metrics.js';

/** Options of {@link createOtelMetrics}. */
export interface OtelMetricsOptions {
  /** Where the figures go: an exporter (stdout, tests) or the OTLP/HTTP (JSON) URL to post them to. */
  exporter: PushMetricExporter | { url: string; headers?: Record<string, string> };
  serviceName: string;
  serviceVersion: string;
  /** Export failures are reported here (at most one line a minute). Default: not reported. */
  log?: Logger;
  /** How often the figures are exported. Default 60000 ms (the SDK's default). */
  intervalMs?: number;
  /** Bounds of `tool_exec_duration_ms`, as `/metrics` has them. */
  durationBucketsMs?: readonly number[];
  /** The same readers `/metrics` scrapes: they are read at export time, nothing is counted twice. */
  sources?: () => readonly SourceHealth[];
  cache?: () => CacheCounters | undefined;
  trust?: () => TrustEventCounters | undefined;
}

/** The gateway's metrics on an OpenTelemetry meter provider. */
export interface OtelMetrics {
  readonly calls: CallObserver;
  readonly search: SearchObserver;
  /** Each server's queue: `server_queue_depth{server}` and `server_queue_wait_seconds{server, outcome}`. */
  readonly queues: ServerQueueObserver;
  /** Exports what is pending now (tests, `close`). */
  flush(): Promise<void>;
  /** Exports the last figures and stops. */
  shutdown(): Promise<void>;
}

/**
 * The figures of `/metrics` as OpenTelemetry instruments, with the same names, labels (as
 * attributes) and bucket bounds, so a dashboard reads alike from either outlet.
 *
 * Nothing is kept twice: the call and search figures come from the observe middleware's fan-out
 * (one timing per call, handed to every observer), and the cache, trust and source figures are
 * observable instruments reading the very functions `/metrics` reads at scrape time. The provider
 * is the gateway's own, never registered globally, for the same reason as the tracer provider.
 */
export function createOtelMetrics(options: OtelMetricsOptions): OtelMetrics {
  const reader = new PeriodicExportingMetricReader({
    exporter: reportingFailures(
      'export' in options.exporter
        ? options.exporter
        : new OTLPMetricExporter({ url: options.exporter.url, headers: { ...options.exporter.headers } }),
      options.log,
    ),
    exportIntervalMillis: options.intervalMs ?? 60_000,
    exportTimeoutMillis: Math.min(options.intervalMs ?? 30_000, 30_000),
  });
  const provider = new MeterProvider({
    resource: resourceFromAttributes({
      'service.name': options.serviceName,
      'service.version': options.serviceVersion,
    }),
    readers: [reader],
  });
  const meter = provider.getMeter('aperture', options.serviceVersion);
  const calls = meter.createCounter('tool_exec_total', {
    description: 'Tool calls that reached execution, by tool id and outcome (ok, or the error code).',
  });
  const errors = meter.createCounter('tool_exec_errors_total', {
    description: 'Tool calls that failed, by tool id and error code.',
  });
  const duration = meter.createHistogram('tool_exec_duration_ms', {
    description: 'Duration of tool calls in milliseconds, by tool id.',
    unit: 'ms',
    advice: { explicitBucketBoundaries: [...(options.durationBucketsMs ?? DEFAULT_DURATION_BUCKETS_MS)] },
  });
  const searchDuration = meter.createHistogram('tool_search_duration_ms', {
    description: 'Duration of tool searches in milliseconds, by ranking strategy.',
    unit: 'ms',
    advice: { explicitBucketBoundaries: [...DEFAULT_SEARCH_BUCKETS_MS] },
  });
  const queueWait = meter.createHistogram('server_queue_wait_seconds', {
    description:
      'How long calls waited for a slot of a downstream server: run (got one) or rate_limited (gave up).',
    unit: 's',
    advice: { explicitBucketBoundaries: [...QUEUE_WAIT_BUCKETS_S] },
  });
  // The depth is set by the queues as it changes; the gauge reports the last value of each server.
  const queueDepths = new Map<string, number>();
  meter
    .createObservableGauge('server_queue_depth', {
      description: 'Calls waiting for a slot of a downstream server (servers.<name>.maxConcurrent) now.',
    })
    .addCallback((result) => {
      for (const [server, waiting] of queueDepths) result.observe(waiting, { server });
    });
  meter
    .createObservableCounter('sandbox_egress_total', {
      description:
        'Connections of sandboxed servers through their egress proxy, by server, host:port and decision.',
    })
    .addCallback((result) => {
      // The proxies count (foundation/sandbox/egress-tally.ts), as `/metrics` reads them.
      for (const { server, host, decision, count } of egressCounts())
        result.observe(count, { server, host, decision });
    });
  const { sources, cache, trust } = options;
  if (sources) {
    meter
      .createObservableGauge('downstream_server_up', {
        description: 'Whether a remote source is connected: 1 yes, 0 no.',
      })
      .addCallback((result) => {
        for (const source of sources()) {
          const server = source.id.startsWith(`${source.kind}:`)
            ? source.id.slice(source.kind.length + 1)
            : source.id;
          result.observe(source.state === 'connected' ? 1 : 0, { server, kind: source.kind });
        }
      });
  }
  if (cache) {
    meter
      .createObservableCounter('tool_cache_lookups_total', {
        description: 'Result cache outcomes: hit, miss, bypass (a tool that is never cached) and eviction.',
      })
      .addCallback((result) => observeCache(result, cache()));
    meter
      .createObservableCounter('tool_cache_tool_lookups_total', {
        description: 'Result cache hits and misses by tool id.',
      })
      .addCallback((result) => {
        for (const [tool, counts] of cache()?.byTool ?? []) {
          result.observe(counts.hits, { tool, outcome: 'hit' });
          result.observe(counts.misses, { tool, outcome: 'miss' });
        }
      });
  }
  if (trust) {
    meter
      .createObservableCounter('tool_trust_events_total', {
        description: 'Downstream tool versions held untrusted: changed since trusted, or flagged.',
      })
      .addCallback((result) => {
        const counts = trust();
        if (!counts) return;
        result.observe(counts.changed, { reason: 'changed' });
        result.observe(counts.flagged, { reason: 'flagged' });
      });
    meter
      .createObservableGauge('tools_quarantined', {
        description: 'Tools held back now until an operator approves them.',
      })
      .addCallback((result) => result.observe(trust()?.quarantined ?? 0));
  }

  return {
    calls: {
      start:
        ({ tool }) =>
        ({ durationMs, error }) => {
          const attributes: Attributes = { tool: tool.id, outcome: error ? error.code : 'ok' };
          calls.add(1, attributes);
          if (error) errors.add(1, { tool: tool.id, code: error.code });
          duration.record(durationMs, { tool: tool.id });
        },
    },
    search: {
      start(info) {
        const started = performance.now();
        return () => searchDuration.record(performance.now() - started, { strategy: info.strategy });
      },
    },
    queues: {
      depth: (server, waiting) => queueDepths.set(server, waiting),
      waited: (server, seconds, timedOut) =>
        queueWait.record(seconds, { server, outcome: timedOut ? 'rate_limited' : 'run' }),
    },
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

function observeCache(result: ObservableResult, counts: CacheCounters | undefined): void {
  if (!counts) return;
  result.observe(counts.hits, { outcome: 'hit' });
  result.observe(counts.misses, { outcome: 'miss' });
  result.observe(counts.bypassed, { outcome: 'bypass' });
  result.observe(counts.evictions, { outcome: 'eviction' });
}

const FAILURE_LOG_INTERVAL_MS = 60_000;

/**
 * As for spans (`otlp-tracing.ts`): the SDK reports failed exports only to its silent global
 * diagnostic logger, so a collector that is down would go unnoticed. Logged through the gateway's
 * logger, the first at once, then at most one line a minute with the count in between.
 */
function reportingFailures(exporter: PushMetricExporter, log: Logger | undefined): PushMetricExporter {
  if (!log) return exporter;
  let lastLogged = Number.NEGATIVE_INFINITY;
  let failures = 0;
  return {
    export(metrics, done) {
      exporter.export(metrics, (result) => {
        if (result.code !== ExportResultCode.SUCCESS) {
          failures++;
          const now = Date.now();
          if (now - lastLogged >= FAILURE_LOG_INTERVAL_MS) {
            lastLogged = now;
            log.warn({ failures, err: result.error?.message ?? 'export failed' }, 'metric export failed');
            failures = 0;
          }
        }
        done(result);
      });
    },
    forceFlush: () => exporter.forceFlush(),
    shutdown: () => exporter.shutdown(),
    ...(exporter.selectAggregationTemporality
      ? { selectAggregationTemporality: exporter.selectAggregationTemporality.bind(exporter) }
      : {}),
    ...(exporter.selectAggregation ? { selectAggregation: exporter.selectAggregation.bind(exporter) } : {}),
  };
}
