import { createObservability, type Observability } from '../../operations/observe/create-observability.js';
import { maskStrings } from '../../operations/secrets/secret-masker.js';
import { observabilityOptions } from '../observability-options.js';
import type { FeatureFactory } from './feature.js';

declare module './feature.js' {
  interface PartTypes {
    /** Call logs, spans and metrics; each part absent when off. */
    observability: Observability;
  }
}

/**
 * Observability: the `observability` middleware (call logs, spans, metrics), the search and
 * downstream observers, and `/metrics`. Listed first so that it closes last: the spans of
 * everything closed before it are flushed too. What it reports on (sources, the result cache,
 * trust) is made after it and read only at scrape time, through `need`.
 */
export const observability: FeatureFactory = async (config, parts) => {
  const { log, options, maskSecrets } = parts.gateway;
  const observed = observabilityOptions(
    config,
    log,
    // A URL or an error may carry a credential: every string is masked.
    () => maskStrings(parts.need('remote').statuses(), maskSecrets),
    () => parts.need('policies').current.cache?.stats(),
    config.trust.mode === 'off' ? undefined : () => parts.need('trust')?.counters(),
  );
  // Without HTTP nothing could scrape the metrics: they are not built (prom-client is not loaded).
  // Serving MCP over stdio, stdout is the protocol's: the stdout exporter writes to stderr then.
  const withSink = options.http === false ? { ...observed, stdout: process.stderr } : observed;
  const made = await createObservability(options.http ? withSink : { ...withSink, metrics: false });
  parts.provide('observability', made);
  return {
    name: 'observability',
    ...(made.middleware ? { middleware: { observability: made.middleware } } : {}),
    ...(made.metrics ? { http: { options: { metrics: made.metrics } } } : {}),
    close: () => made.close(),
  };
};
