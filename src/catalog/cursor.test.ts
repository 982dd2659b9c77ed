import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, listingKey } from './cursor.js';

describe('cursor', () => {
  const key = listingKey({ q: 'x' });

  it('round-trips the offset for the same listing and version', () => {
    expect(decodeCursor(encodeCursor(40, 7, key), 7, key)).toBe(40);
  });

  it('is invalidated by a catalog change', () => {
    expect(() => decodeCursor(encodeCursor(20, 7, key), 8, key)).toThrow(/catalog changed/);
  });

  it('refuses a cursor of another listing and garbage', () => {
    expect(() => decodeCursor(encodeCursor(20, 7, key), 7, listingKey({ q: 'y' }))).toThrow(
      /another listing/,
    );
    for (const junk of [
      '',
      'abc',
      Buffer.from('{"o":-1,"v":7}').toString('base64url'),
      Buffer.from('null').toString('base64url'),
    ]) {
      expect(() => decodeCursor(junk, 7, key)).toThrow(/malformed/);
    }
  });
});
