import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { httpStatusOf, jsonRpcCodeOf } from '../../foundation/model/error-tables.js';
import type { GatewayError } from '../../foundation/model/gateway-error.js';

/**
 * A JSON error answer in the REST shape `{ success: false, error: { code, message } }`. The status
 * comes from the code (`ERROR_CODE_TABLE`), so no answer can carry a status its code disagrees with.
 */
export function httpError(c: Context, error: GatewayError): Response {
  return c.json(
    { success: false, error: { code: error.code, message: error.message } },
    httpStatusOf(error.code) as ContentfulStatusCode,
  );
}

/** A JSON-RPC error object, with the gateway code in `data.code`; the number comes from the table. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data: { code: GatewayError['code'] };
}

/** The JSON-RPC error object for `error` (code from `ERROR_CODE_TABLE`, `-32700` for unparseable JSON). */
export function jsonRpcError(error: GatewayError): JsonRpcErrorObject {
  return { code: jsonRpcCodeOf(error), message: error.message, data: { code: error.code } };
}

/** An HTTP answer carrying a JSON-RPC error (for MCP endpoints); status and number from the table. */
export function jsonRpcErrorResponse(c: Context, error: GatewayError): Response {
  return c.json(
    { jsonrpc: '2.0', id: null, error: jsonRpcError(error) },
    httpStatusOf(error.code) as ContentfulStatusCode,
  );
}
