import { describe, expect, it } from 'vitest';
import { FLAT_NAME_PATTERN, flatToolName } from './flat-name.js';

describe('flatToolName', () => {
  it('joins namespace and name with a double underscore', () => {
    expect(flatToolName('github', 'create_issue')).toBe('github__create_issue');
  });

  it('keeps the own name without prefix', () => {
    expect(flatToolName('github', 'create_issue', { prefix: false })).toBe('create_issue');
  });

  it('sanitises and hashes names with foreign characters, so a.b and a_b do not collide', () => {
    const dotted = flatToolName('my.ns', 'x');
    const underscored = flatToolName('my_ns', 'x');
    expect(dotted).toMatch(FLAT_NAME_PATTERN);
    expect(dotted).not.toBe(underscored);
    expect(dotted.startsWith('my_ns__x_')).toBe(true);
  });

  it('shortens long names deterministically within 64 characters', () => {
    const long = 'n'.repeat(80);
    const a = flatToolName('server', long);
    expect(a).toHaveLength(64);
    expect(a).toMatch(FLAT_NAME_PATTERN);
    expect(flatToolName('server', long)).toBe(a);
    expect(flatToolName('server', `${long}x`)).not.toBe(a);
  });

  it('always yields a valid name', () => {
    for (const [ns, name] of [
      ['a', 'ü'],
      ['ns', 'a/b c'],
      ['x'.repeat(70), 'y'],
    ] as const) {
      expect(flatToolName(ns, name)).toMatch(FLAT_NAME_PATTERN);
    }
  });
});
