import { describe, expect, it } from 'vitest';
import {
  classifyGuestError,
  describeProgramError,
  programLocation,
  remapStack,
  syntaxErrorAt,
} from './program-error.js';

describe('program errors', () => {
  it('maps engine frames to lines of the program', () => {
    const stack =
      '    at f (<input>:4:7)\n    at anonymous (<input>:3)\n    at request (aperture-prelude.js:22:32)\n';
    expect(programLocation(stack)).toEqual({ line: 2, column: 7 });
    expect(remapStack(stack)).toBe(
      '    at f (<program>:2:7)\n    at anonymous (<program>:1)\n    at request (aperture-prelude.js:22:32)\n',
    );
    expect(programLocation('    at request (aperture-prelude.js:22:32)\n')).toBeUndefined();
  });

  it('formats uncaught errors, naming a host error code', () => {
    expect(describeProgramError({ name: 'TypeError', message: 'x is null' }).message).toBe(
      'TypeError: x is null',
    );
    const hostError = describeProgramError({
      name: 'GatewayError',
      message: 'no tool',
      code: 'tool_not_found',
    });
    expect(hostError).toEqual({
      code: 'execution_failed',
      message: 'GatewayError [tool_not_found]: no tool',
      details: { name: 'GatewayError', code: 'tool_not_found' },
    });
    expect(describeProgramError({ name: '', message: "'plain'" }).message).toBe("Uncaught 'plain'");
    expect(describeProgramError(undefined).code).toBe('execution_failed');
  });

  it('places syntax errors inside the program, clamping the end of input to its last line', () => {
    const at = (line: number, column: number) => ({
      name: 'SyntaxError',
      message: 'bad',
      stack: `    at <input>:${line}:${column}\n`,
    });
    expect(syntaxErrorAt(at(4, 11), 'a\nconst b = ;').details).toEqual({ line: 2, column: 11 });
    expect(syntaxErrorAt(at(6, 1), 'if (a) {\n  b();').details).toEqual({ line: 2, column: 7 });
    expect(syntaxErrorAt({ name: 'SyntaxError', message: 'bad' }, 'x').details).toEqual({
      line: 1,
      column: 1,
    });
  });
});

describe('classifyGuestError: a thrown null', () => {
  const limits = { timeoutMs: 100, memoryMb: 8, maxToolCalls: 1, maxLogBytes: 1, maxResultBytes: 1 };
  const info = { name: '', message: 'null' };

  it('is the memory limit when the program never throws or rejects', () => {
    const error = classifyGuestError(
      info,
      'program',
      'const m = new Map(); for (;;) m.set(1, 2)',
      limits,
      true,
    );
    expect(error).toEqual({
      code: 'sandbox_violation',
      message: 'the program exceeded its memory limit (8 MiB)',
      details: { limit: 'memory_mb' },
    });
  });

  it('stays the program’s own error, naming the memory limit, when it may have thrown it', () => {
    const error = classifyGuestError(info, 'program', 'throw null', limits, true);
    expect(error.code).toBe('execution_failed');
    expect(error.message).toMatch(/^Uncaught null .*memory limit of 8 MiB/);
  });

  it('reports "string too long" as the memory limit', () => {
    const error = classifyGuestError(
      { name: 'InternalError', message: 'string too long' },
      'program',
      '',
      limits,
    );
    expect(error.code).toBe('sandbox_violation');
    expect(error.details).toEqual({ limit: 'memory_mb' });
  });
});

describe('classifyGuestError', () => {
  const limits = { timeoutMs: 100, memoryMb: 8, maxToolCalls: 1, maxLogBytes: 1, maxResultBytes: 1 };
  it.each([
    [
      'out of memory',
      { name: 'InternalError', message: 'out of memory' },
      'program',
      'sandbox_violation',
      'memory_mb',
    ],
    [
      'a stack overflow',
      { name: 'InternalError', message: 'stack overflow' },
      'result',
      'sandbox_violation',
      'stack_size',
    ],
    ['an interrupt', { name: 'InternalError', message: 'interrupted' }, 'program', 'timeout', undefined],
    [
      'a syntax error',
      { name: 'SyntaxError', message: 'bad', stack: 'at <input>:3:2' },
      'compile',
      'invalid_request',
      undefined,
    ],
    [
      'a failed serialisation',
      { name: 'TypeError', message: 'circular' },
      'result',
      'sandbox_violation',
      'json',
    ],
    ['a broken prelude', { name: 'Error', message: 'x' }, 'boot', 'internal', undefined],
    ['a program error', { name: 'RangeError', message: 'x' }, 'program', 'execution_failed', undefined],
  ] as const)('classifies %s', (_name, info, stage, code, limit) => {
    const error = classifyGuestError(info, stage, 'a\nb', limits);
    expect(error.code).toBe(code);
    if (limit) expect(error.details).toEqual({ limit });
  });
});
