import { describe, expect, it } from 'vitest';
import { LogBuffer, truncateUtf8 } from './log-buffer.js';

describe('LogBuffer', () => {
  it('keeps lines while they fit, counting one byte per line', () => {
    const buffer = new LogBuffer(10);
    expect(buffer.add('log', 'abcd')).toBe(true);
    expect(buffer.add('warn', 'efgh')).toBe(true);
    expect(buffer.entries).toEqual([
      { level: 'log', message: 'abcd' },
      { level: 'warn', message: 'efgh' },
    ]);
  });

  it('cuts the line that overflows, says so once, and drops the rest', () => {
    const buffer = new LogBuffer(10);
    buffer.add('log', 'abcd');
    expect(buffer.add('error', 'efghijkl')).toBe(false);
    expect(buffer.add('log', 'later')).toBe(false);
    expect(buffer.entries).toEqual([
      { level: 'log', message: 'abcd' },
      { level: 'error', message: 'efgh' },
      { level: 'warn', message: expect.stringContaining('truncated') },
    ]);
  });

  it('bounds a flood of empty lines', () => {
    const buffer = new LogBuffer(5);
    let accepted = 0;
    while (buffer.add('log', '')) accepted++;
    expect(accepted).toBe(5);
  });
});

describe('truncateUtf8', () => {
  it.each([
    ['ascii', 'abcdef', 3, 'abc'],
    ['a two-byte character at the cut', 'aé', 2, 'a'],
    ['a four-byte character at the cut', 'a😀b', 4, 'a'],
    ['text that fits', 'é', 5, 'é'],
  ])('handles %s', (_name, text, bytes, expected) => {
    expect(truncateUtf8(text, bytes)).toBe(expected);
  });
});
