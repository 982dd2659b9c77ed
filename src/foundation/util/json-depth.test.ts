import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, pathPastDepth } from './json-depth.js';

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

describe('pathPastDepth', () => {
  it('accepts values up to the limit, scalars included', () => {
    expect(pathPastDepth(nested(MAX_JSON_DEPTH))).toBeUndefined();
    expect(pathPastDepth('text')).toBeUndefined();
    expect(pathPastDepth(null)).toBeUndefined();
    expect(pathPastDepth([[1], { b: [2] }], 3)).toBeUndefined();
  });

  it('names the first value past the limit, iteratively (10,000 levels do not overflow)', () => {
    expect(pathPastDepth(nested(MAX_JSON_DEPTH + 1))).toBe(`/${Array(MAX_JSON_DEPTH).fill('a').join('/')}`);
    expect(pathPastDepth(nested(10_000))).toMatch(/^\/a\/a/);
    expect(pathPastDepth({ 'x/y': [[[]]] }, 3)).toBe('/x~1y/0/0');
    expect(pathPastDepth({ ok: { fine: 1 }, 'a~b': [{ c: { d: {} } }] }, 4)).toBe('/a~0b/0/c/d');
    expect(pathPastDepth([[]], 1)).toBe('/0');
  });
});
