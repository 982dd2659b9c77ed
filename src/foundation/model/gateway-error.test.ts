import { describe, expect, it } from 'vitest';
import { GATEWAY_ERROR_CODES } from './error-codes.js';
import { ERROR_CODE_TABLE, httpStatusOf } from './error-tables.js';
import { GatewayError, toGatewayError } from './gateway-error.js';

describe('GatewayError', () => {
  it('maps every code in every table', () => {
    for (const code of GATEWAY_ERROR_CODES) {
      const info = ERROR_CODE_TABLE[code];
      expect(info, code).toBeDefined();
      expect(info.httpStatus).toBeGreaterThanOrEqual(400);
      expect(info.a2aState).toMatch(/failed|canceled|rejected|auth-required/);
    }
    expect(Object.keys(ERROR_CODE_TABLE).sort()).toEqual([...GATEWAY_ERROR_CODES].sort());
  });

  it('never gives a backend or internal failure a caller-fault status', () => {
    for (const code of [
      'execution_failed',
      'validation_output',
      'backend_unavailable',
      'timeout',
      'internal',
    ] as const) {
      expect(ERROR_CODE_TABLE[code].callerFault).toBe(false);
      expect(httpStatusOf(code)).toBeGreaterThanOrEqual(500);
    }
    expect(httpStatusOf('validation_input')).toBe(400);
    expect(httpStatusOf('tool_not_found')).toBe(404);
    expect(httpStatusOf('payload_too_large')).toBe(413);
  });

  it('gives a caller fault a 4xx status and a backend or gateway fault a 5xx one', () => {
    const off = GATEWAY_ERROR_CODES.filter((code) => {
      const { fault, callerFault, httpStatus } = ERROR_CODE_TABLE[code];
      if (callerFault !== (fault === 'caller')) return true;
      // 424 Failed Dependency: a chain step's own failure is in details, with its own status.
      if (code === 'chain_step_failed') return httpStatus !== 424;
      return fault === 'caller' ? httpStatus >= 500 : httpStatus < 500;
    });
    expect(off).toEqual([]);
  });

  it('serialises to the wire shape', () => {
    const error = new GatewayError('timeout', 'slow', { details: { timeoutMs: 5 } }).withToolId('a:b');
    expect(error.toJSON()).toEqual({
      code: 'timeout',
      message: 'slow',
      tool_id: 'a:b',
      retryable: true,
      details: { timeoutMs: 5 },
    });
  });

  it('normalises unknown throws to internal (or the given fallback), never a caller fault', () => {
    expect(toGatewayError(new Error('boom')).code).toBe('internal');
    expect(toGatewayError('text', 'execution_failed')).toMatchObject({
      code: 'execution_failed',
      message: 'text',
    });
    expect(toGatewayError({ weird: true }).message).toBe('{"weird":true}');
    const abort = new DOMException('stop', 'AbortError');
    expect(toGatewayError(abort).code).toBe('cancelled');
    const foreign = Object.assign(new Error('nope'), { code: 'forbidden' });
    expect(toGatewayError(foreign).code).toBe('forbidden');
    const nodeError = Object.assign(new Error('enoent'), { code: 'ENOENT' });
    expect(toGatewayError(nodeError).code).toBe('internal');
  });
});

describe('GatewayError.with', () => {
  const cause = new Error('socket hang up');
  const original = new GatewayError('backend_unavailable', 'server "a" is down', {
    retryable: false,
    details: { server: 'a' },
    toolId: 'a:b',
    cause,
    hint: 'find_tool',
  });
  const fields = (error: GatewayError) => ({
    code: error.code,
    message: error.message,
    retryable: error.retryable,
    details: error.details,
    toolId: error.toolId,
    cause: error.cause,
    hint: error.hint,
  });

  it('keeps every field it is not told to change, in a new error', () => {
    const copy = original.with({});
    expect(copy).not.toBe(original);
    expect(copy).toBeInstanceOf(GatewayError);
    expect(fields(copy)).toEqual(fields(original));
    // The non-default retryable in particular: backend_unavailable is retryable by default.
    expect(copy.retryable).toBe(false);
    expect(copy.cause).toBe(cause);
  });

  it('changes each field it is given and keeps the others', () => {
    const otherCause = new Error('other');
    const changes = [
      { message: 'changed' },
      { details: { server: 'b' } },
      { toolId: 'c:d' },
      { cause: otherCause },
      { hint: 'find_toolset' as const },
      { retryable: true },
    ];
    for (const change of changes) {
      expect(fields(original.with(change)), JSON.stringify(change)).toEqual({
        ...fields(original),
        ...change,
      });
    }
  });

  it('drops a field given as undefined, and goes back to the default retryability', () => {
    const cleared = original.with({
      details: undefined,
      toolId: undefined,
      cause: undefined,
      hint: undefined,
      retryable: undefined,
    });
    expect(fields(cleared)).toEqual({
      ...fields(original),
      details: undefined,
      toolId: undefined,
      cause: undefined,
      hint: undefined,
      retryable: true,
    });
    expect('cause' in cleared).toBe(false);
    expect(cleared.toJSON()).toEqual({
      code: 'backend_unavailable',
      message: 'server "a" is down',
      retryable: true,
    });
  });

  it("gives a new code that code's default retryability unless told otherwise", () => {
    const retryable = new GatewayError('rate_limited', 'slow down');
    expect(retryable.with({ code: 'forbidden' }).retryable).toBe(false);
    expect(original.with({ code: 'timeout' }).retryable).toBe(true);
    expect(original.with({ code: 'timeout', retryable: false }).retryable).toBe(false);
    expect(original.with({ code: 'backend_unavailable' }).retryable).toBe(false);
    expect(fields(original.with({ code: 'timeout' }))).toMatchObject({
      cause,
      hint: 'find_tool',
      toolId: 'a:b',
    });
  });

  it('leaves the error it derives from as it was', () => {
    const before = fields(original);
    original.with({
      message: 'x',
      code: 'internal',
      details: {},
      toolId: 'x:y',
      cause: undefined,
      hint: undefined,
    });
    expect(fields(original)).toEqual(before);
  });

  it('withToolId keeps retryable, cause and hint', () => {
    const named = new GatewayError('backend_unavailable', 'down', {
      retryable: false,
      cause,
      hint: 'find_tool',
    }).withToolId('a:b');
    expect(fields(named)).toMatchObject({ retryable: false, cause, hint: 'find_tool', toolId: 'a:b' });
    expect(named.withToolId('a:b')).toBe(named);
  });
});
