import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { GatewayErrorCode } from '../../foundation/error-codes.js';

/** A JSON error answer in the REST shape `{ success: false, error: { code, message } }`. */
export function httpError(c: Context, status: number, code: GatewayErrorCode, message: string): Response {
  return c.json({ success: false, error: { code, message } }, status as ContentfulStatusCode);
}

/** A JSON-RPC error answer (for MCP endpoints), with the gateway code in `error.data.code`. */
export function jsonRpcError(
  c: Context,
  status: number,
  rpcCode: number,
  code: GatewayErrorCode,
  message: string,
): Response {
  return c.json(
    { jsonrpc: '2.0', id: null, error: { code: rpcCode, message, data: { code } } },
    status as ContentfulStatusCode,
  );
}
