import { describe, expect, it } from 'vitest';
import { ownValue, setOwn } from './own-key.js';

describe('own keys', () => {
  it('sets __proto__ as a plain key, leaving the prototype alone', () => {
    const record: Record<string, unknown> = {};
    setOwn(record, '__proto__', { polluted: true });
    expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
    expect(Object.keys(record)).toEqual(['__proto__']);
    expect(JSON.stringify(record)).toBe('{"__proto__":{"polluted":true}}');
  });

  it('reads only what the record holds itself', () => {
    expect(ownValue({}, 'constructor')).toBeUndefined();
    expect(ownValue({}, '__proto__')).toBeUndefined();
    expect(ownValue(JSON.parse('{"__proto__":1}'), '__proto__')).toBe(1);
    expect(ownValue({ a: 2 }, 'a')).toBe(2);
  });
});
