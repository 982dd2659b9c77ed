import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';

describe('canonicalJson', () => {
  it('gives the same text whatever the key order, at every depth', () => {
    const a = { b: 1, a: { y: [3, { d: 1, c: 2 }], x: null } };
    const b = { a: { x: null, y: [3, { c: 2, d: 1 }] }, b: 1 };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalJson(a)).toBe('{"a":{"x":null,"y":[3,{"c":2,"d":1}]},"b":1}');
  });

  it('keeps array order and tells different values apart', () => {
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
    expect(canonicalJson({ a: '1' })).not.toBe(canonicalJson({ a: 1 }));
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: 1, b: null }));
  });

  it('follows JSON.stringify for undefined members and odd values', () => {
    expect(canonicalJson({ b: undefined, a: 1 })).toBe('{"a":1}');
    expect(canonicalJson({ n: Number.NaN })).toBe('{"n":null}');
    expect(canonicalJson(undefined)).toBe('null');
    expect(canonicalJson({ k: '\u2028"' })).toBe(JSON.stringify({ k: '\u2028"' }));
  });
});
