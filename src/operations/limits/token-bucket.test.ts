import { describe, expect, it } from 'vitest';
import { TokenBucket } from './token-bucket.js';

describe('TokenBucket', () => {
  it('lets a burst of `capacity` through, then refuses', () => {
    const bucket = new TokenBucket(3, 60, 0);
    expect([1, 2, 3].map(() => bucket.tryTake(0))).toEqual([true, true, true]);
    expect(bucket.tryTake(0)).toBe(false);
  });

  it('refills at perMinute and tells how long until the next token', () => {
    const bucket = new TokenBucket(1, 60, 0); // one a second
    expect(bucket.tryTake(0)).toBe(true);
    expect(bucket.msUntilToken(0)).toBe(1000);
    expect(bucket.msUntilToken(400)).toBe(600);
    expect(bucket.tryTake(999)).toBe(false);
    expect(bucket.tryTake(1000)).toBe(true);
  });

  it('never holds more than its capacity, however long it was idle', () => {
    const bucket = new TokenBucket(2, 600, 0);
    expect(bucket.available(3_600_000)).toBe(2);
    expect(bucket.isFull(3_600_000)).toBe(true);
    bucket.take(3_600_000);
    expect(bucket.isFull(3_600_000)).toBe(false);
    expect(bucket.isFull(3_600_100)).toBe(true);
  });

  it('ignores a clock that steps back', () => {
    const bucket = new TokenBucket(1, 60, 1000);
    bucket.take(1000);
    expect(bucket.available(500)).toBe(0);
    expect(bucket.available(2000)).toBe(1);
  });
});
