import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ERROR_CODE_TABLE } from '../../foundation/error-tables.js';
import { type GatewayError, toGatewayError } from '../../foundation/gateway-error.js';

/** A failure as a REST answer: `{ success: false, error }` with the status from the code table. */
export function restError(c: Context, error: unknown): Response {
  const failure: GatewayError = toGatewayError(error);
  const status = ERROR_CODE_TABLE[failure.code].httpStatus as ContentfulStatusCode;
  return c.json({ success: false, error: failure.toJSON() }, status);
}
