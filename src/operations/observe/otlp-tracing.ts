import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  ParentBasedSampler,
  type SpanExporter,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import type { Logger } from '../../foundation/ports/logger.js';
import { type SpanObservers, spanObservers } from './span-observers.js';

/** Options of {@link createOtlpTracing}. */
export interface OtlpTracingOptions {
  /**
   * The collector: a base URL (`http://collector:4318`, to which `/v1/traces` is added) or the
   * full traces URL (ending in `/v1/traces`), as OTEL_EXPORTER_OTLP_ENDPOINT and
   * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT are read. Absent only with an `exporter` of the caller's.
   */
  endpoint?: string;
  /**
   * The share of new traces recorded, 0 to 1 (default 1: all). Parent-based: a call inside a
   * trace an embedding application started follows that trace's decision, so a trace is kept or
   * dropped whole.
   */
  sampleRatio?: number;
  /** Sent with every export (an API key of the collector). */
  headers?: Readonly<Record<string, string>>;
  /** `service.name` of the resource. */
  serviceName: string;
  serviceVersion: string;
  /** Export failures are reported here (at most one line a minute). */
  log: Logger;
  /** Replaces the OTLP/HTTP exporter (tests). */
  exporter?: SpanExporter;
  /** Most time `shutdown` waits for the last export. Default 5000 ms. */
  shutdownTimeoutMs?: number;
}

/** Tracing over OTLP: span observers, and a shutdown that flushes what is still queued. */
export interface OtlpTracing extends SpanObservers {
  /** Exports the queued spans (bounded by `shutdownTimeoutMs`) and stops. */
  shutdown(): Promise<void>;
}

/** The traces URL for an endpoint given as a base URL or as the full traces URL. */
export function tracesUrl(endpoint: string): string {
  const url = new URL(endpoint);
  if (!url.pathname.endsWith('/v1/traces')) url.pathname = `${url.pathname.replace(/\/+$/, '')}/v1/traces`;
  return url.href;
}

/**
 * Spans exported over OTLP/HTTP (JSON encoding) through a batch processor, on a tracer provider of
 * the gateway's own: nothing is registered globally, so two gateways in one process (tests, an
 * embedding application) never share or steal each other's spans.
 */
export function createOtlpTracing(options: OtlpTracingOptions): OtlpTracing {
  const url = options.endpoint === undefined ? 'stdout' : tracesUrl(options.endpoint);
  const exporter = reportingFailures(
    options.exporter ?? new OTLPTraceExporter({ url, headers: { ...options.headers } }),
    options.log,
    url,
  );
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      'service.name': options.serviceName,
      'service.version': options.serviceVersion,
    }),
    spanProcessors: [new BatchSpanProcessor({ exporter })],
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(options.sampleRatio ?? 1) }),
  });
  const tracer = provider.getTracer('aperture', options.serviceVersion);
  const timeoutMs = options.shutdownTimeoutMs ?? 5000;
  return {
    ...spanObservers(tracer),
    async shutdown() {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          options.log.warn({ url, timeoutMs }, 'trace export did not finish before shutdown');
          resolve();
        }, timeoutMs);
      });
      try {
        await Promise.race([provider.shutdown().catch(() => {}), timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

const FAILURE_LOG_INTERVAL_MS = 60_000;

/**
 * The SDK reports export failures through its global diagnostic logger, silent by default; a
 * collector that is down would go unnoticed. This wrapper logs them through the gateway's logger,
 * the first at once, then at most one line a minute with the count of failures in between.
 */
function reportingFailures(exporter: SpanExporter, log: Logger, url: string): SpanExporter {
  let lastLogged = Number.NEGATIVE_INFINITY;
  let unreported = 0;
  const onResult = (result: ExportResult, spans: number) => {
    if (result.code === ExportResultCode.SUCCESS) return;
    unreported++;
    const now = Date.now();
    if (now - lastLogged < FAILURE_LOG_INTERVAL_MS) return;
    lastLogged = now;
    log.warn(
      { url, spans, failures: unreported, err: result.error?.message ?? 'export failed' },
      'trace export failed; spans dropped',
    );
    unreported = 0;
  };
  return {
    export(spans, done) {
      exporter.export(spans, (result) => {
        onResult(result, spans.length);
        done(result);
      });
    },
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}
