/**
 * The signal's URL for an endpoint given as a base URL (`http://collector:4318`, to which
 * `/v1/<signal>` is added) or as the signal's full URL, as OTEL_EXPORTER_OTLP_ENDPOINT and the
 * per-signal OTEL_EXPORTER_OTLP_<SIGNAL>_ENDPOINT are read. One `endpoint` setting serves traces
 * and metrics: a traces URL given in full is turned into the metrics URL beside it.
 */
export function signalUrl(endpoint: string, signal: 'traces' | 'metrics'): string {
  const url = new URL(endpoint);
  const base = url.pathname.replace(/\/+$/, '').replace(/\/v1\/(traces|metrics)$/, '');
  url.pathname = `${base}/v1/${signal}`;
  return url.href;
}

/** The metrics URL (`…/v1/metrics`) for an endpoint (see {@link signalUrl}). */
export function metricsUrl(endpoint: string): string {
  return signalUrl(endpoint, 'metrics');
}
