import { describe, expect, it } from 'vitest';
import { hasTerminalControls } from '../foundation/util/terminal-safe.js';
import { prettyLogLine } from './pretty-log-line.js';

const at = new Date(2026, 0, 2, 3, 4, 5, 67).getTime();

describe('prettyLogLine', () => {
  it('shows local time, level, component and message, then the other fields as key=value', () => {
    const line = JSON.stringify({
      level: 40,
      time: at,
      app: 'aperture',
      component: 'mcp',
      msg: 'server process exited',
      server: 'memory',
      code: 1,
      reason: 'two words',
      nested: { a: [1] },
    });
    expect(prettyLogLine(`${line}\n`)).toBe(
      '03:04:05.067 WARN  [mcp] server process exited server=memory code=1 reason="two words" nested={"a":[1]}\n',
    );
  });

  it('shows a serialised error by its message, not its stack', () => {
    const line = JSON.stringify({
      level: 50,
      time: at,
      msg: 'failed',
      err: { type: 'Error', message: 'boom', stack: 'Error: boom\n at x' },
    });
    expect(prettyLogLine(line)).toBe('03:04:05.067 ERROR failed err="boom"\n');
  });

  it('passes through what is not a JSON object', () => {
    expect(prettyLogLine('plain text\n')).toBe('plain text\n');
    expect(prettyLogLine('[1,2]')).toBe('[1,2]');
  });

  it('escapes control and bidirectional characters a downstream server put in a message or field', () => {
    const line = JSON.stringify({
      level: 40,
      time: 0,
      msg: 'server stderr\u001b]0;pwned\u0007',
      line: 'ok\u001b[2J\rfake\u202egnp.exe',
      tool: 'a\u009b31m',
    });
    const pretty = prettyLogLine(line);
    expect(hasTerminalControls(pretty, true)).toBe(false);
    expect(pretty).toContain('server stderr\\u001b]0;pwned\\u0007');
    expect(pretty).toContain('tool=a\\u009b31m');
    expect(pretty.endsWith('\n')).toBe(true);
    // Not JSON (a raw stderr line): passed through, controls escaped, its own newline kept.
    expect(prettyLogLine('raw \u001b[31mred\n')).toBe('raw \\u001b[31mred\n');
  });
});
