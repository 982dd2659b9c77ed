import { describe, expect, it } from 'vitest';
import { failureOf } from '../../../test/support/expect-failure.js';
import { integerAtLeast, numberInRange, oneOf, positiveNumber } from './option-checks.js';

describe('option checks', () => {
  it('return a good value unchanged', () => {
    expect(integerAtLeast(3, 1, 'x')).toBe(3);
    expect(positiveNumber(0.5, 'x')).toBe(0.5);
    expect(numberInRange(1, 0, 1, 'x')).toBe(1);
    expect(oneOf('scope', ['scope', 'identity'], 'x')).toBe('scope');
  });

  it('refuse a bad one with config_invalid naming the option and the value', () => {
    const cases: [() => unknown, string][] = [
      [() => integerAtLeast(1.5, 1, 'cache ttlMs'), 'cache ttlMs must be an integer ≥ 1, got 1.5'],
      [() => integerAtLeast(0, 1, 'cache ttlMs'), 'cache ttlMs must be an integer ≥ 1, got 0'],
      [() => positiveNumber(Number.NaN, 'perMinute'), 'perMinute must be a number > 0, got NaN'],
      [() => numberInRange(2, 0, 1, 'b.name'), 'b.name must be a number between 0 and 1, got 2'],
      [() => numberInRange(-1, 0, Number.POSITIVE_INFINITY, 'k1'), 'k1 must be a number ≥ 0, got -1'],
      [
        () => oneOf('nobody' as never, ['scope', 'identity'], 'cache partition'),
        'cache partition must be "scope" or "identity", got "nobody"',
      ],
    ];
    for (const [check, message] of cases) {
      const error = failureOf(check);
      expect(error.code).toBe('config_invalid');
      expect(error.message).toBe(message);
    }
  });
});
