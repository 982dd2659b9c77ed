import { describe, expect, it } from 'vitest';
import { MemoryStateStore } from '../foundation/ports/memory-state-store.js';
import { FAILURE_SCOPE, FailureStats } from './failure-stats.js';

const MINUTE = 60_000;

function stats(store = new MemoryStateStore()) {
  let now = 1_000_000;
  const failures = new FailureStats({ store, halfLifeMs: 10 * MINUTE, weight: 0.5, now: () => now });
  return { failures, store, advance: (ms: number) => (now += ms) };
}

describe('FailureStats', () => {
  it('counts failures and halves them every half-life (minutes, not seconds)', () => {
    const { failures, advance } = stats();
    failures.record('t', false);
    failures.record('t', false);
    expect(failures.failures('t')).toBe(2);
    expect(failures.factor('t')).toBeCloseTo(1 / (1 + 0.5 * 2), 12);
    advance(30_000);
    expect(failures.failures('t')).toBeCloseTo(2 * 0.5 ** (0.5 / 10), 12);
    advance(10 * MINUTE - 30_000);
    expect(failures.failures('t')).toBeCloseTo(1, 12);
    advance(20 * MINUTE);
    expect(failures.failures('t')).toBeCloseTo(0.25, 12);
  });

  it('a success halves the count; tools that never failed are untouched', () => {
    const { failures, store } = stats();
    failures.record('ok', true);
    expect(failures.empty).toBe(true);
    expect(store.count(FAILURE_SCOPE)).toBe(0);
    failures.record('t', false);
    failures.record('t', true);
    expect(failures.failures('t')).toBe(0.5);
    expect(failures.factor('never')).toBe(1);
  });

  it('forgets a tool once its count is negligible', () => {
    const { failures, store, advance } = stats();
    failures.record('t', false);
    advance(10 * 10 * MINUTE);
    expect(failures.failures('t')).toBe(0);
    failures.record('t', true);
    expect(store.count(FAILURE_SCOPE)).toBe(0);
  });

  it('persists: a new instance on the same store remembers', () => {
    const store = new MemoryStateStore();
    stats(store).failures.record('t', false);
    const again = stats(store).failures;
    expect(again.failures('t')).toBe(1);
    expect(again.empty).toBe(false);
  });
});
