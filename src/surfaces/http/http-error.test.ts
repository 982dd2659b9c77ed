import { type Context, Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { GATEWAY_ERROR_CODES } from '../../foundation/model/error-codes.js';
import { ERROR_CODE_TABLE } from '../../foundation/model/error-tables.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { httpError, jsonRpcError, jsonRpcErrorResponse } from './http-error.js';

async function answer(make: (c: Context) => Response) {
  const app = new Hono();
  app.get('/', (c) => make(c));
  const res = await app.request('/');
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('httpError / jsonRpcError', () => {
  it.each(GATEWAY_ERROR_CODES)('answers %s with the status and JSON-RPC code of the table', async (code) => {
    const error = new GatewayError(code, 'm');
    const rest = await answer((c) => httpError(c, error));
    expect(rest).toEqual({
      status: ERROR_CODE_TABLE[code].httpStatus,
      body: { success: false, error: { code, message: 'm' } },
    });
    const rpc = await answer((c) => jsonRpcErrorResponse(c, error));
    expect(rpc).toEqual({
      status: ERROR_CODE_TABLE[code].httpStatus,
      body: {
        jsonrpc: '2.0',
        id: null,
        error: { code: ERROR_CODE_TABLE[code].jsonRpcCode, message: 'm', data: { code } },
      },
    });
  });

  // Regression: the MCP session endpoints sent forbidden as -32600 (the table said -32000) and
  // not_found as -32001 (the table said -32600), each call site passing its own numbers.
  it('sends a refused session as -32000 and an unknown one as -32001 (the MCP SDK number)', () => {
    expect(jsonRpcError(new GatewayError('forbidden', 'x')).code).toBe(-32000);
    expect(jsonRpcError(new GatewayError('not_found', 'x')).code).toBe(-32001);
    expect(jsonRpcError(new GatewayError('payload_too_large', 'x')).code).toBe(-32600);
  });

  it('sends a body that is not JSON as -32700 and other invalid requests as -32600', () => {
    let parseFailure: unknown;
    try {
      JSON.parse('{');
    } catch (error) {
      parseFailure = error;
    }
    expect(jsonRpcError(new GatewayError('invalid_request', 'x', { cause: parseFailure })).code).toBe(-32700);
    expect(jsonRpcError(new GatewayError('invalid_request', 'x')).code).toBe(-32600);
  });
});
