import { type ExportResult, ExportResultCode, hrTimeToMilliseconds } from '@opentelemetry/core';
import {
  AggregationTemporality,
  type PushMetricExporter,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';

/** Where the stdout exporters write: `process.stdout`, or a stream of the caller's (tests). */
export interface LineSink {
  write(line: string): unknown;
}

/**
 * Spans as JSON lines (`{"span": name, ...}`), one per span: for local work without a collector,
 * readable by eye and by `jq`. The SDK's console exporter prints `util.inspect` output over many
 * lines, which no tool can read back.
 */
export function stdoutSpanExporter(sink: LineSink): SpanExporter {
  return {
    export(spans: ReadableSpan[], done: (result: ExportResult) => void) {
      for (const span of spans) {
        const context = span.spanContext();
        const line: Record<string, unknown> = {
          span: span.name,
          traceId: context.traceId,
          spanId: context.spanId,
          kind: span.kind,
          durationMs: hrTimeToMilliseconds(span.duration),
          status: span.status.code,
          attributes: span.attributes,
        };
        if (span.parentSpanContext) line.parentSpanId = span.parentSpanContext.spanId;
        sink.write(`${JSON.stringify(line)}\n`);
      }
      done({ code: ExportResultCode.SUCCESS });
    },
    shutdown: async () => {},
    forceFlush: async () => {},
  };
}

/** Metrics as JSON lines (`{"metric": name, "points": [...]}`), one per metric and export. */
export function stdoutMetricExporter(sink: LineSink): PushMetricExporter {
  return {
    export(metrics: ResourceMetrics, done: (result: ExportResult) => void) {
      for (const scope of metrics.scopeMetrics) {
        for (const metric of scope.metrics) {
          if (metric.dataPoints.length === 0) continue;
          const points = metric.dataPoints.map((point) => ({
            attributes: point.attributes,
            value: point.value,
          }));
          sink.write(`${JSON.stringify({ metric: metric.descriptor.name, points })}\n`);
        }
      }
      done({ code: ExportResultCode.SUCCESS });
    },
    selectAggregationTemporality: () => AggregationTemporality.CUMULATIVE,
    shutdown: async () => {},
    forceFlush: async () => {},
  };
}
