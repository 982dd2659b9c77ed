import type { ApertureConfig } from '../config/config-schema.js';
import type { Logger } from '../foundation/ports/logger.js';
import type { ObservabilityOptions } from '../operations/observe/create-observability.js';
import type {
  CacheCounters,
  SourceHealth,
  TrustEventCounters,
} from '../operations/observe/prometheus-metrics.js';
import { PACKAGE_INFO } from './package-info.js';

/** Levels at which the call log's `info` lines are written. */
const INFO_ENABLED = new Set(['trace', 'debug', 'info']);

/** The `observability` config section as the options of `createObservability`. */
export function observabilityOptions(
  config: ApertureConfig,
  log: Logger,
  sources: () => readonly SourceHealth[],
  cache?: () => CacheCounters | undefined,
  trust?: () => TrustEventCounters | undefined,
): ObservabilityOptions {
  const { callLogs, metrics, otlp, logLevel, exporter, tracing } = config.observability;
  return {
    serviceName: config.server.name,
    serviceVersion: PACKAGE_INFO.version,
    log,
    // Below `info` the lines would be dropped anyway; then not even the arguments are redacted.
    callLogs:
      callLogs.enabled && INFO_ENABLED.has(logLevel)
        ? { args: callLogs.args, maxStringLength: callLogs.maxStringLength }
        : false,
    ...(otlp
      ? {
          otlp: {
            exporter: exporter ?? 'otlp',
            ...(otlp.endpoint ? { endpoint: otlp.endpoint } : {}),
            ...(otlp.headers ? { headers: otlp.headers } : {}),
            sampleRatio: tracing?.sampleRatio ?? 1,
            metrics: otlp.metrics ?? false,
            metricsIntervalMs: otlp.metricsIntervalMs ?? 60_000,
          },
        }
      : {}),
    metrics: metrics.enabled
      ? {
          processMetrics: metrics.process,
          ...(metrics.durationBucketsMs ? { durationBucketsMs: metrics.durationBucketsMs } : {}),
        }
      : false,
    sources,
    ...(cache ? { cache } : {}),
    ...(trust ? { trust } : {}),
  };
}
