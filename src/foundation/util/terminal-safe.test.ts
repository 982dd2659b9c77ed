import { describe, expect, it } from 'vitest';
import { hasTerminalControls, terminalSafe } from './terminal-safe.js';

describe('terminalSafe', () => {
  it('escapes ESC/CSI/OSC sequences, C0 and C1 controls and DEL visibly', () => {
    expect(terminalSafe('a\u001b[2Jb')).toBe('a\\u001b[2Jb');
    expect(terminalSafe('\u001b]52;c;ZXZpbA==\u0007')).toBe('\\u001b]52;c;ZXZpbA==\\u0007');
    expect(terminalSafe('x\u009b31my')).toBe('x\\u009b31my');
    expect(terminalSafe('ok\rfake')).toBe('ok\\u000dfake');
    expect(terminalSafe('\u0000\u0008\u007f\u0085')).toBe('\\u0000\\u0008\\u007f\\u0085');
  });

  it('escapes bidirectional overrides, isolates and marks, and Unicode line separators', () => {
    expect(terminalSafe('admin\u202eexe.txt')).toBe('admin\\u202eexe.txt');
    for (const char of ['\u202a', '\u202d', '\u2066', '\u2069', '\u200e', '\u200f', '\u061c', '\u2028']) {
      expect(terminalSafe(char)).toMatch(/^\\u[0-9a-f]{4}$/);
    }
  });

  it('keeps tabs and printable text (any script, emoji); newlines only when multiline', () => {
    const text = 'naïve\tСлово 漢字 🙂 "quoted" \\ back';
    expect(terminalSafe(text)).toBe(text);
    expect(terminalSafe('one\ntwo')).toBe('one\\u000atwo');
    expect(terminalSafe('one\ntwo\u001b', true)).toBe('one\ntwo\\u001b');
  });

  it('leaves JSON text valid JSON that parses to the same value', () => {
    const value = { name: 'x\u009b\u202e\u2028y', n: 1 };
    const safe = terminalSafe(JSON.stringify(value, null, 2), true);
    expect(safe).not.toMatch(/[\u0080-\u009f\u202e\u2028]/);
    expect(JSON.parse(safe)).toEqual(value);
  });
});

describe('hasTerminalControls', () => {
  it('finds what terminalSafe would escape, newlines only when not multiline', () => {
    expect(hasTerminalControls('plain\ttext')).toBe(false);
    expect(hasTerminalControls('a\u001bb')).toBe(true);
    expect(hasTerminalControls('a\u202eb')).toBe(true);
    expect(hasTerminalControls('a\nb')).toBe(true);
    expect(hasTerminalControls('a\nb', true)).toBe(false);
    // Stateless between calls (a global pattern keeps lastIndex).
    expect(hasTerminalControls('x\u0007')).toBe(true);
    expect(hasTerminalControls('x\u0007')).toBe(true);
  });
});
