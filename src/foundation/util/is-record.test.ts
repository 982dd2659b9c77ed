import { describe, expect, it } from 'vitest';
import { isRecord } from './is-record.js';

describe('isRecord', () => {
  it('accepts objects, including empty and null-prototype ones', () => {
    expect(isRecord({})).toBe(true);
    expect(isRecord({ a: 1 })).toBe(true);
    expect(isRecord(Object.create(null))).toBe(true);
  });

  it('refuses arrays, null and primitives', () => {
    for (const value of [[], [1], null, undefined, 0, 'x', true]) expect(isRecord(value)).toBe(false);
  });
});
