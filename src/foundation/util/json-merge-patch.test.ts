import { describe, expect, it } from 'vitest';
import { applyMergePatch } from './json-merge-patch.js';

describe('applyMergePatch (RFC 7396)', () => {
  // The test cases of RFC 7396, appendix A.
  const cases: [unknown, unknown, unknown][] = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];

  it.each(cases)('%j patched with %j is %j', (target, patch, expected) => {
    expect(applyMergePatch(target, patch)).toEqual(expected);
  });

  it('changes neither the target nor the patch', () => {
    const target = { a: { b: 1 } };
    const patch = { a: { c: 2 } };
    applyMergePatch(target, patch);
    expect(target).toEqual({ a: { b: 1 } });
    expect(patch).toEqual({ a: { c: 2 } });
  });

  // Regression: a `__proto__` key in an override's schema patch replaced the prototype of the
  // patched `properties` object (the property vanished, the reload reported success).
  it.each(['__proto__', 'constructor', 'prototype'])(
    'keeps a %s key as plain data, never a prototype',
    (key) => {
      const patch = JSON.parse(`{"properties":{"${key}":{"type":"string"}},"${key}":{"polluted":true}}`);
      const result = applyMergePatch({ type: 'object', properties: { a: { type: 'number' } } }, patch) as {
        properties: Record<string, unknown>;
      };
      expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
      expect(Object.getPrototypeOf(result.properties)).toBe(Object.prototype);
      expect(Object.keys(result.properties).sort()).toEqual([key, 'a'].sort());
      expect(Object.getOwnPropertyDescriptor(result.properties, key)?.value).toEqual({ type: 'string' });
      expect(Object.getOwnPropertyDescriptor(result, key)?.value).toEqual({ polluted: true });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(JSON.parse(JSON.stringify(result)).properties[key]).toEqual({ type: 'string' });
    },
  );

  it('removes an own __proto__ key with null and leaves the prototype alone', () => {
    const target = JSON.parse('{"__proto__":{"x":1},"a":1}');
    const result = applyMergePatch(target, JSON.parse('{"__proto__":null}')) as object;
    expect(Object.keys(result)).toEqual(['a']);
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
  });
});
