import { describe, expect, it } from 'vitest';
import { backoffDelay } from './backoff.js';

describe('backoffDelay', () => {
  it('doubles from 0.5 s and stops at 30 s', () => {
    const top = (attempt: number) => backoffDelay(attempt, { random: () => 0.999999 });
    expect([0, 1, 2, 3, 4, 5, 6, 7, 20].map(top)).toEqual([
      500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000,
    ]);
  });

  it('jitters each delay between half and all of its ceiling', () => {
    expect(backoffDelay(3, { random: () => 0 })).toBe(2000);
    const seen = new Set(Array.from({ length: 50 }, () => backoffDelay(3)));
    for (const delay of seen) expect(delay).toBeGreaterThanOrEqual(2000);
    for (const delay of seen) expect(delay).toBeLessThanOrEqual(4000);
    expect(seen.size).toBeGreaterThan(5);
  });

  it('honours custom bounds', () => {
    expect(backoffDelay(0, { minMs: 10, maxMs: 40, random: () => 0.999999 })).toBe(10);
    expect(backoffDelay(9, { minMs: 10, maxMs: 40, random: () => 0.999999 })).toBe(40);
  });
});
