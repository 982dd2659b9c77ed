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
