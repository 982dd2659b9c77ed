import { describe, expect, it } from 'vitest';
import { normalizeTags } from './tags.js';

describe('normalizeTags', () => {
  it('lowercases, dashes whitespace, drops other characters and duplicates', () => {
    expect(normalizeTags([' Demo ', 'demo', 'Read Only', 'v1.2_x', 'a+b!', '', '   '])).toEqual([
      'demo',
      'read-only',
      'v1.2_x',
      'ab',
    ]);
  });

  it('accepts undefined', () => {
    expect(normalizeTags(undefined)).toEqual([]);
  });
});
