import { describe, expect, it } from 'vitest';
import { histogramPercentile, MINUTE_MS, MinuteAggregates, mergeFigures } from './minute-aggregates.js';

describe('MinuteAggregates', () => {
  it('counts calls and errors per tool and minute, exactly', () => {
    const minutes = new MinuteAggregates();
    minutes.record('t:a', 0, 1, false);
    minutes.record('t:a', 59_999, 1, true);
    minutes.record('t:a', MINUTE_MS, 1, false);
    minutes.record('t:b', MINUTE_MS, 1, false);
    const first = minutes.figures(0, MINUTE_MS);
    expect(first.get('t:a')).toMatchObject({ calls: 2, errors: 1 });
    expect(first.has('t:b')).toBe(false);
    expect(minutes.figures(0, 2 * MINUTE_MS).get('t:a')).toMatchObject({ calls: 3, errors: 1 });
    expect([...minutes.figures(0, 2 * MINUTE_MS, 't:b').keys()]).toEqual(['t:b']);
  });

  it('reads percentiles from its histogram within 25% above the true value', () => {
    const minutes = new MinuteAggregates();
    // 1 ms … 100 ms: the true p50 is 50 ms, p95 95 ms.
    for (let ms = 1; ms <= 100; ms++) minutes.record('t:a', 0, ms, false);
    const figures = minutes.figures(0, MINUTE_MS).get('t:a');
    if (!figures) throw new Error('no figures');
    const p50 = histogramPercentile(figures, 0.5);
    const p95 = histogramPercentile(figures, 0.95);
    expect(p50).toBeGreaterThanOrEqual(50);
    expect(p50).toBeLessThanOrEqual(50 * 1.25);
    expect(p95).toBeGreaterThanOrEqual(95);
    expect(p95).toBeLessThanOrEqual(95 * 1.25);
    expect(histogramPercentile(mergeFigures([]), 0.5)).toBe(0);
  });

  it('forgets minutes older than it keeps', () => {
    const minutes = new MinuteAggregates(60);
    minutes.record('t:a', 0, 1, false);
    minutes.record('t:a', 60 * MINUTE_MS, 1, false);
    expect(minutes.figures(0, MINUTE_MS).size).toBe(0);
    expect(minutes.figures(60 * MINUTE_MS, 61 * MINUTE_MS).get('t:a')?.calls).toBe(1);
  });
});
