import { describe, expect, it } from 'vitest';
import { optionFailure } from '../../../test/support/expect-failure.js';
import { histogramSeries, parseExposition, sampleValue } from '../../../test/support/prometheus-text.js';
import { makeTool } from '../../../test/support/test-tools.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import type { RunCall } from '../../foundation/ports/run-middleware.js';
import { createPrometheusMetrics } from './prometheus-metrics.js';

function call(toolId: string): RunCall {
  return {
    tool: makeTool(toolId),
    args: { password: 'hunter2' },
    ctx: {
      signal: new AbortController().signal,
      callId: 'c1',
      caller: { identity: 'alice' },
      progress: () => {},
      log: silentLogger,
    },
  };
}

/** Reports one call that took `durationMs` and ended with `error`. */
function record(
  metrics: ReturnType<typeof createPrometheusMetrics>,
  toolId: string,
  durationMs: number,
  error?: GatewayError,
) {
  metrics.calls.start(call(toolId))(error ? { durationMs, error } : { durationMs });
}

describe('createPrometheusMetrics', () => {
  it('counts calls by tool and outcome, errors by code, and times them in ms buckets', async () => {
    const metrics = createPrometheusMetrics({ processMetrics: false });
    record(metrics, 'ns:a', 3);
    record(metrics, 'ns:a', 0.2);
    record(metrics, 'ns:a', 40, new GatewayError('timeout', 'slow'));
    record(metrics, 'ns:b', 700, new GatewayError('execution_failed', 'boom'));
    const text = await metrics.scrape();
    const m = parseExposition(text);

    expect(m.types.get('tool_exec_total')).toBe('counter');
    expect(m.types.get('tool_exec_errors_total')).toBe('counter');
    expect(m.types.get('tool_exec_duration_ms')).toBe('histogram');
    expect(sampleValue(m, 'tool_exec_total', { tool: 'ns:a', outcome: 'ok' })).toBe(2);
    expect(sampleValue(m, 'tool_exec_total', { tool: 'ns:a', outcome: 'timeout' })).toBe(1);
    expect(sampleValue(m, 'tool_exec_total', { tool: 'ns:b', outcome: 'execution_failed' })).toBe(1);
    expect(sampleValue(m, 'tool_exec_errors_total', { tool: 'ns:a', code: 'timeout' })).toBe(1);
    expect(sampleValue(m, 'tool_exec_errors_total', { tool: 'ns:b', code: 'execution_failed' })).toBe(1);
    expect(sampleValue(m, 'tool_exec_errors_total', { tool: 'ns:a', code: 'execution_failed' })).toBe(0);

    const a = histogramSeries(m, 'tool_exec_duration_ms', { tool: 'ns:a' });
    expect(a?.count).toBe(3);
    expect(a?.sum).toBeCloseTo(43.2);
    // Cumulative: 0.2 ms ≤ 0.5; 3 ms ≤ 5; 40 ms ≤ 50.
    expect(a?.buckets.get('0.5')).toBe(1);
    expect(a?.buckets.get('2.5')).toBe(1);
    expect(a?.buckets.get('5')).toBe(2);
    expect(a?.buckets.get('25')).toBe(2);
    expect(a?.buckets.get('50')).toBe(3);
    expect(a?.buckets.get('+Inf')).toBe(3);
    expect(histogramSeries(m, 'tool_exec_duration_ms', { tool: 'ns:b' })?.buckets.get('500')).toBe(0);
    expect(histogramSeries(m, 'tool_exec_duration_ms', { tool: 'ns:b' })?.buckets.get('1000')).toBe(1);
    // Labels are tool ids and codes only: never arguments or identities.
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('alice');
  });

  it('uses the configured duration buckets and refuses unusable ones', async () => {
    const metrics = createPrometheusMetrics({ processMetrics: false, durationBucketsMs: [1, 10] });
    record(metrics, 'ns:a', 5);
    const series = histogramSeries(parseExposition(await metrics.scrape()), 'tool_exec_duration_ms', {
      tool: 'ns:a',
    });
    expect([...(series?.buckets.keys() ?? [])]).toEqual(['1', '10', '+Inf']);
    expect(optionFailure(() => createPrometheusMetrics({ durationBucketsMs: [10, 1] }))).toMatch(/ascending/);
    expect(optionFailure(() => createPrometheusMetrics({ durationBucketsMs: [] }))).toMatch(/non-empty/);
  });

  it('times searches by strategy', async () => {
    const metrics = createPrometheusMetrics({ processMetrics: false });
    const end = metrics.search.start({ queryLength: 5, limit: 20, offset: 0, strategy: 'bm25' });
    end({ results: 3 });
    metrics.search.start({ queryLength: 0, limit: 20, offset: 0, strategy: 'bm25' })({ results: 20 });
    const m = parseExposition(await metrics.scrape());
    expect(m.types.get('tool_search_duration_ms')).toBe('histogram');
    expect(histogramSeries(m, 'tool_search_duration_ms', { strategy: 'bm25' })?.count).toBe(2);
  });

  it('reads the health of remote sources at scrape time (1 connected, 0 not)', async () => {
    let sources = [
      { id: 'mcp:everything', kind: 'mcp', state: 'connected' },
      { id: 'mcp:broken', kind: 'mcp', state: 'failed' },
      { id: 'openapi:pets', kind: 'openapi', state: 'connecting' },
    ];
    const metrics = createPrometheusMetrics({ processMetrics: false, sources: () => sources });
    let m = parseExposition(await metrics.scrape());
    expect(m.types.get('downstream_server_up')).toBe('gauge');
    expect(sampleValue(m, 'downstream_server_up', { server: 'everything', kind: 'mcp' })).toBe(1);
    expect(sampleValue(m, 'downstream_server_up', { server: 'broken', kind: 'mcp' })).toBe(0);
    expect(sampleValue(m, 'downstream_server_up', { server: 'pets', kind: 'openapi' })).toBe(0);

    sources = [{ id: 'mcp:broken', kind: 'mcp', state: 'connected' }];
    m = parseExposition(await metrics.scrape());
    expect(sampleValue(m, 'downstream_server_up', { server: 'broken', kind: 'mcp' })).toBe(1);
    // A source that is gone is gone from the gauge too.
    expect(m.samples.get('downstream_server_up')).toHaveLength(1);
  });

  it('copies the trust counters at scrape time, and has no trust series without them', async () => {
    let counts = { changed: 2, flagged: 1, quarantined: 3 };
    const metrics = createPrometheusMetrics({ processMetrics: false, trust: () => counts });
    let m = parseExposition(await metrics.scrape());
    expect(m.types.get('tool_trust_events_total')).toBe('counter');
    expect(sampleValue(m, 'tool_trust_events_total', { reason: 'changed' })).toBe(2);
    expect(sampleValue(m, 'tool_trust_events_total', { reason: 'flagged' })).toBe(1);
    expect(sampleValue(m, 'tools_quarantined')).toBe(3);
    counts = { changed: 3, flagged: 1, quarantined: 0 };
    m = parseExposition(await metrics.scrape());
    expect(sampleValue(m, 'tool_trust_events_total', { reason: 'changed' })).toBe(3);
    expect(sampleValue(m, 'tools_quarantined')).toBe(0);

    const off = parseExposition(await createPrometheusMetrics({ processMetrics: false }).scrape());
    expect(off.types.has('tool_trust_events_total')).toBe(false);
    expect(off.types.has('tools_quarantined')).toBe(false);
  });

  it('adds the Node process metrics unless turned off', async () => {
    const withProcess = parseExposition(await createPrometheusMetrics().scrape());
    expect(withProcess.types.get('process_cpu_user_seconds_total')).toBe('counter');
    expect(withProcess.types.get('nodejs_heap_size_used_bytes')).toBe('gauge');
    expect(sampleValue(withProcess, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    const without = parseExposition(await createPrometheusMetrics({ processMetrics: false }).scrape());
    expect(without.types.has('process_cpu_user_seconds_total')).toBe(false);
  });
});
