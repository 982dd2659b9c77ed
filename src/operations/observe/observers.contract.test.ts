import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { makeTool } from '../../../test/support/test-tools.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import type { DownstreamCallObserver, SearchObserver } from '../../foundation/ports/operation-observer.js';
import type { RunCall } from '../../foundation/ports/run-middleware.js';
import { callLog } from './call-log.js';
import type { CallObserver } from './call-observer.js';
import { combine } from './create-observability.js';
import { createPrometheusMetrics } from './prometheus-metrics.js';
import { spanObservers } from './span-observers.js';

/**
 * Every observer implementation through one contract: starting and ending never throws, whatever
 * the outcome, and operations that overlap may end in any order (calls run concurrently).
 */
function implementations() {
  const provider = new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter: new InMemorySpanExporter() })],
  });
  const spans = spanObservers(provider.getTracer('contract'));
  const metrics = createPrometheusMetrics({ processMetrics: false });
  const calls: [string, CallObserver][] = [
    ['spans', spans.calls],
    ['metrics', metrics.calls],
    ['call log', callLog({ log: silentLogger })],
  ];
  const searches: [string, SearchObserver][] = [
    ['spans', spans.search],
    ['metrics', metrics.search],
    ['combined', combine([spans.search, metrics.search]) as SearchObserver],
  ];
  const downstream: [string, DownstreamCallObserver][] = [
    ['spans', spans.downstream],
    ['combined', combine([spans.downstream, spans.downstream]) as DownstreamCallObserver],
  ];
  return { calls, searches, downstream };
}

function call(callId: string): RunCall {
  return {
    tool: makeTool('ns:tool'),
    args: { nested: { deep: [1, 'two', null] } },
    ctx: {
      signal: new AbortController().signal,
      callId,
      caller: { identity: 'x' },
      progress: () => {},
      log: silentLogger,
    },
  };
}

describe('observer contract', () => {
  const { calls, searches, downstream } = implementations();

  it.each(calls)('call observer %s: overlapping calls end in any order, ok or failed', (_name, observer) => {
    const ends = ['a', 'b', 'c'].map((id) => observer.start(call(id)));
    expect(() => {
      ends[1]?.({ durationMs: 1, error: new GatewayError('timeout', 't') });
      ends[2]?.({ durationMs: 0 });
      ends[0]?.({ durationMs: 2.5, error: new GatewayError('internal', 'i') });
    }).not.toThrow();
  });

  it.each(searches)('search observer %s: ends with results or an error code', (_name, observer) => {
    const first = observer.start({ queryLength: 3, limit: 20, offset: 0, strategy: 'bm25' });
    const second = observer.start({ queryLength: 0, limit: 1, offset: 5, strategy: 'lexical' });
    expect(() => {
      second({ results: 0, errorCode: 'invalid_request' });
      first({ results: 20 });
    }).not.toThrow();
  });

  it.each(downstream)('downstream observer %s: with or without a known call', (_name, observer) => {
    const known = observer.start({ server: 's', tool: 't', callId: 'a' });
    const unknown = observer.start({ server: 's', tool: 't', callId: 'nobody' });
    expect(() => {
      unknown({ errorCode: 'backend_unavailable' });
      known({});
    }).not.toThrow();
  });
});
