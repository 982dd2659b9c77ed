import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { makeTool } from '../../../test/support/test-tools.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import type { RunCall } from '../../foundation/ports/run-middleware.js';
import { spanObservers } from './span-observers.js';

function setup() {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  return { exporter, observers: spanObservers(provider.getTracer('test')) };
}

function call(callId = 'call-1'): RunCall {
  return {
    tool: makeTool('weather:forecast', { version: '2', tags: ['read', 'geo'] }),
    args: { api_key: 'secret-value' },
    ctx: {
      signal: new AbortController().signal,
      callId,
      caller: { identity: 'alice', toolset: 'ro', sessionId: 's-1' },
      progress: () => {},
      log: silentLogger,
    },
  };
}

describe('spanObservers', () => {
  it('makes a tool.exec.{namespace}.{name} span per call with the tool and caller attributes', () => {
    const { exporter, observers } = setup();
    observers.calls.start(call())({ durationMs: 1 });
    const [span] = exporter.getFinishedSpans();
    expect(span?.name).toBe('tool.exec.weather.forecast');
    expect(span?.kind).toBe(SpanKind.INTERNAL);
    expect(span?.attributes).toEqual({
      'tool.id': 'weather:forecast',
      'tool.namespace': 'weather',
      'tool.name': 'forecast',
      'tool.version': '2',
      'tool.tags': ['read', 'geo'],
      'tool.call_id': 'call-1',
      'caller.identity': 'alice',
      'tool.source': 'test',
      'caller.toolset': 'ro',
      'caller.session_id': 's-1',
    });
    expect(span?.status.code).toBe(SpanStatusCode.UNSET);
    // Arguments never go into spans.
    expect(JSON.stringify(span?.attributes)).not.toContain('secret-value');
  });

  it('marks a failed call ERROR with its code, and not its message', () => {
    const { exporter, observers } = setup();
    observers.calls.start(call())({
      durationMs: 1,
      error: new GatewayError('execution_failed', 'bad key secret-value'),
    });
    const [span] = exporter.getFinishedSpans();
    expect(span?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'execution_failed' });
    expect(span?.attributes['error.type']).toBe('execution_failed');
    expect(
      JSON.stringify({ attributes: span?.attributes, events: span?.events, status: span?.status }),
    ).not.toContain('secret-value');
  });

  it('nests a downstream call under the tool.exec span of the call it serves', () => {
    const { exporter, observers } = setup();
    const endCall = observers.calls.start(call('call-7'));
    observers.downstream.start({ server: 'everything', tool: 'echo', callId: 'call-7' })({});
    endCall({ durationMs: 2 });
    const [mcp, exec] = exporter.getFinishedSpans();
    expect(mcp?.name).toBe('mcp.call everything');
    expect(mcp?.kind).toBe(SpanKind.CLIENT);
    expect(mcp?.attributes).toMatchObject({
      'mcp.server.name': 'everything',
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'echo',
    });
    expect(mcp?.spanContext().traceId).toBe(exec?.spanContext().traceId);
    expect(mcp?.parentSpanContext?.spanId).toBe(exec?.spanContext().spanId);
  });

  it('starts a new trace for a downstream call of no known call, and marks its failure', () => {
    const { exporter, observers } = setup();
    observers.downstream.start({ server: 's', tool: 't', callId: 'unknown' })({
      errorCode: 'backend_unavailable',
    });
    const [span] = exporter.getFinishedSpans();
    expect(span?.parentSpanContext).toBeUndefined();
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span?.attributes['error.type']).toBe('backend_unavailable');
  });

  it('makes a tool.search span with the query length and result count (never the query)', () => {
    const { exporter, observers } = setup();
    observers.search.start({ queryLength: 12, limit: 20, offset: 0, strategy: 'bm25' })({ results: 4 });
    const [span] = exporter.getFinishedSpans();
    expect(span?.name).toBe('tool.search');
    expect(span?.attributes).toEqual({
      'search.query.length': 12,
      'search.strategy': 'bm25',
      'search.limit': 20,
      'search.offset': 0,
      'search.result.count': 4,
    });
  });
});
