import { describe, expect, it } from 'vitest';
import { STDERR_LINE_CHARS, StderrRing } from './stderr-ring.js';

describe('StderrRing', () => {
  it('keeps the last lines only, oldest first', () => {
    const ring = new StderrRing(3);
    for (const line of ['a', 'b', 'c', 'd', 'e']) ring.push(line);
    expect(ring.recent()).toEqual(['c', 'd', 'e']);
  });

  it('cuts an overlong line and skips blank ones', () => {
    const ring = new StderrRing(3);
    ring.push('x'.repeat(STDERR_LINE_CHARS * 3));
    ring.push('   ');
    const [line, ...rest] = ring.recent();
    expect(rest).toEqual([]);
    expect(line).toBe(`${'x'.repeat(STDERR_LINE_CHARS)}…`);
  });

  it('hands out a copy: callers cannot change what is kept', () => {
    const ring = new StderrRing(3);
    ring.push('kept');
    ring.recent().push('added');
    expect(ring.recent()).toEqual(['kept']);
  });
});
