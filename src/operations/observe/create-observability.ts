import type { Logger } from '../../foundation/ports/logger.js';
import type {
  DownstreamCallObserver,
  OperationObserver,
  SearchObserver,
} from '../../foundation/ports/operation-observer.js';
import type { RunMiddleware } from '../../foundation/ports/run-middleware.js';
import type { ServerQueueObserver } from '../limits/server-queues.js';
import { callLog } from './call-log.js';
import type { CallObserver } from './call-observer.js';
import { observeCalls } from './observe-calls.js';
import { metricsUrl } from './otlp-urls.js';
import type { CacheCounters, SourceHealth, TrustEventCounters } from './prometheus-metrics.js';
import type { LineSink } from './stdout-exporters.js';

/** Options of {@link createObservability}; the `observability` config section plus what app/ knows. */
export interface ObservabilityOptions {
  /** `service.name` of exported spans. */
  serviceName: string;
  serviceVersion: string;
  log: Logger;
  /** One info line per tool call (off: `false`). */
  callLogs: false | { args: boolean; maxStringLength: number };
  /** Export spans (and metrics) over OTLP/HTTP to this collector, or to stdout (off: absent). */
  otlp?: OtlpOptions;
  /** Prometheus metrics at `/metrics` (off: `false`). */
  metrics: false | { processMetrics: boolean; durationBucketsMs?: readonly number[] };
  /** The remote sources at scrape time (`Gateway.readiness().sources`). */
  sources: () => readonly SourceHealth[];
  /** The result cache's counters at scrape time (`Gateway.policies.cache.stats()`). */
  cache?: () => CacheCounters | undefined;
  /** The trust gate's counters at scrape time (`Gateway.trust.counters()`). */
  trust?: () => TrustEventCounters | undefined;
  /** Where `exporter: stdout` writes. Default `process.stdout`. */
  stdout?: LineSink;
}

/** The `observability.otlp` section with `exporter` and `tracing.sampleRatio`. */
export interface OtlpOptions {
  /** `otlp`: to `endpoint`; `stdout`: JSON lines to {@link ObservabilityOptions.stdout}. */
  exporter: 'otlp' | 'stdout';
  /** Required with `exporter: otlp`. */
  endpoint?: string;
  headers?: Readonly<Record<string, string>>;
  /** Share of traces recorded, 0 to 1. Default 1. */
  sampleRatio?: number;
  /** Export the metrics too. Default false. */
  metrics?: boolean;
  /** Default 60000 ms. */
  metricsIntervalMs?: number;
}

/** What `/metrics` serves. */
export interface MetricsEndpoint {
  readonly contentType: string;
  scrape(): Promise<string>;
}

/** The gateway's observability, ready to wire: each part is absent when its feature is off. */
export interface Observability {
  /** Goes first in the pipeline's middlewares. */
  readonly middleware: RunMiddleware | undefined;
  /** For `ToolSearch`. */
  readonly search: SearchObserver | undefined;
  /** For every `DownstreamServer`. */
  readonly downstream: DownstreamCallObserver | undefined;
  readonly metrics: MetricsEndpoint | undefined;
  /** For the per-server queues (`server_queue_depth`, `server_queue_wait_seconds`), with metrics. */
  readonly queues?: ServerQueueObserver | undefined;
  /** Flushes the spans still queued; call after everything else has closed. */
  close(): Promise<void>;
}

/**
 * Builds the observability the options ask for: the observe middleware over the call log, spans
 * and metrics, and the search and downstream observers. OpenTelemetry and prom-client are loaded
 * only when used, since loading them costs start-up time (about 50 ms for prom-client and 150 ms
 * for the OpenTelemetry SDK and exporter on the benchmark machine).
 */
export async function createObservability(options: ObservabilityOptions): Promise<Observability> {
  const callObservers: CallObserver[] = [];
  const searchObservers: SearchObserver[] = [];
  const downstreamObservers: DownstreamCallObserver[] = [];
  let metrics: MetricsEndpoint | undefined;
  const queueObservers: ServerQueueObserver[] = [];
  let shutdown: () => Promise<void> = async () => {};

  const closers: (() => Promise<void>)[] = [];
  const otlp = options.otlp;
  if (otlp) {
    const sink = options.stdout ?? process.stdout;
    const stdout = otlp.exporter === 'stdout' ? await import('./stdout-exporters.js') : undefined;
    const { createOtlpTracing } = await import('./otlp-tracing.js');
    const tracing = createOtlpTracing({
      ...(stdout ? { exporter: stdout.stdoutSpanExporter(sink) } : {}),
      ...(otlp.endpoint ? { endpoint: otlp.endpoint } : {}),
      ...(otlp.headers ? { headers: otlp.headers } : {}),
      ...(otlp.sampleRatio === undefined ? {} : { sampleRatio: otlp.sampleRatio }),
      serviceName: options.serviceName,
      serviceVersion: options.serviceVersion,
      log: options.log.child({ component: 'tracing' }),
    });
    callObservers.push(tracing.calls);
    searchObservers.push(tracing.search);
    downstreamObservers.push(tracing.downstream);
    closers.push(() => tracing.shutdown());
    if (otlp.metrics) {
      const { createOtelMetrics } = await import('./otel-metrics.js');
      const exporter = stdout
        ? stdout.stdoutMetricExporter(sink)
        : { url: metricsUrl(otlp.endpoint ?? ''), headers: { ...otlp.headers } };
      // `/metrics`' bounds, so both outlets bucket alike (`metrics: false` has none).
      const bucketsMs = options.metrics === false ? undefined : options.metrics?.durationBucketsMs;
      const meters = createOtelMetrics({
        exporter,
        log: options.log.child({ component: 'metrics' }),
        serviceName: options.serviceName,
        serviceVersion: options.serviceVersion,
        ...(otlp.metricsIntervalMs ? { intervalMs: otlp.metricsIntervalMs } : {}),
        ...(bucketsMs ? { durationBucketsMs: bucketsMs } : {}),
        sources: options.sources,
        ...(options.cache ? { cache: options.cache } : {}),
        ...(options.trust ? { trust: options.trust } : {}),
      });
      callObservers.push(meters.calls);
      searchObservers.push(meters.search);
      queueObservers.push(meters.queues);
      closers.push(() => meters.shutdown().catch(() => {}));
    }
    shutdown = async () => {
      await Promise.all(closers.map((close) => close()));
    };
  }
  if (options.metrics) {
    const { createPrometheusMetrics } = await import('./prometheus-metrics.js');
    const prometheus = createPrometheusMetrics({
      processMetrics: options.metrics.processMetrics,
      ...(options.metrics.durationBucketsMs ? { durationBucketsMs: options.metrics.durationBucketsMs } : {}),
      sources: options.sources,
      ...(options.cache ? { cache: options.cache } : {}),
      ...(options.trust ? { trust: options.trust } : {}),
    });
    callObservers.push(prometheus.calls);
    searchObservers.push(prometheus.search);
    metrics = prometheus;
    queueObservers.push(prometheus.queues);
  }
  if (options.callLogs) {
    callObservers.push(
      callLog({
        log: options.log.child({ component: 'calls' }),
        args: options.callLogs.args,
        maxStringLength: options.callLogs.maxStringLength,
      }),
    );
  }

  return {
    middleware: callObservers.length > 0 ? observeCalls(callObservers) : undefined,
    search: combine(searchObservers),
    downstream: combine(downstreamObservers),
    metrics,
    ...(queueObservers.length === 0 ? {} : { queues: bothQueues(queueObservers) }),
    close: shutdown,
  };
}

/** One observer reporting to all of `observers`; undefined for none, the observer itself for one. */
export function combine<S, E>(
  observers: readonly OperationObserver<S, E>[],
): OperationObserver<S, E> | undefined {
  if (observers.length <= 1) return observers[0];
  return {
    start(info) {
      const ends = observers.map((observer) => observer.start(info));
      return (end) => {
        for (const finish of ends) finish(end);
      };
    },
  };
}

/** One queue observer reporting to every outlet (`/metrics`, OTLP); the one itself for one. */
function bothQueues(observers: readonly ServerQueueObserver[]): ServerQueueObserver {
  if (observers.length === 1 && observers[0]) return observers[0];
  return {
    depth: (server, waiting) => {
      for (const observer of observers) observer.depth(server, waiting);
    },
    waited: (server, seconds, timedOut) => {
      for (const observer of observers) observer.waited(server, seconds, timedOut);
    },
  };
}
