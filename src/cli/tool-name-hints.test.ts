import { describe, expect, it } from 'vitest';
import { exitCodeOf } from './cli-context.js';
import { bareNameError, unknownNamespaceError } from './tool-name-hints.js';

describe('unknownNamespaceError', () => {
  it('says the namespace does not exist, names the nearest ones, and is a caller mistake (exit 2)', () => {
    const error = unknownNamespaceError('nope', ['time', 'note', 'local', 'notes', 'time']);
    expect(error.message).toBe('No namespace "nope" exists; the nearest are "note", "notes", "time"');
    expect(exitCodeOf(error)).toBe(2);
  });
});

describe('bareNameError', () => {
  const tools = [
    { id: 'local:ping', name: 'ping' },
    { id: 'time:now', name: 'now' },
    { id: 'clock:now', name: 'now' },
  ];

  it('suggests the full id when one tool has the bare name', () => {
    const error = bareNameError('ping', tools);
    expect(error?.message).toContain('did you mean "local:ping"?');
    expect(error && exitCodeOf(error)).toBe(2);
  });

  it('lists the candidates when several namespaces have it', () => {
    expect(bareNameError('now', tools)?.message).toContain('"time:now", "clock:now"');
  });

  it('leaves full ids and unknown names to the ordinary error', () => {
    expect(bareNameError('local:ping', tools)).toBeUndefined();
    expect(bareNameError('pong', tools)).toBeUndefined();
  });
});
