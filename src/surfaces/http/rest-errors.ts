import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { errorForSurface } from '../../foundation/model/error-hints.js';
import { ERROR_CODE_TABLE } from '../../foundation/model/error-tables.js';
import { type GatewayError, toGatewayError } from '../../foundation/model/gateway-error.js';

/**
 * A failure as a REST answer: `{ success: false, error }` with the status from the code table,
 * and `Retry-After` (seconds, rounded up) when the error carries `details.retryAfterMs`.
 */
export function restError(c: Context, error: unknown): Response {
  const failure: GatewayError = errorForSurface(toGatewayError(error), 'rest');
  const status = ERROR_CODE_TABLE[failure.code].httpStatus as ContentfulStatusCode;
  // A failure that knows when to try again (rate limited, circuit open) says so the HTTP way too.
  const retryAfterMs = failure.details?.retryAfterMs;
  if (typeof retryAfterMs === 'number' && Number.isFinite(retryAfterMs) && retryAfterMs >= 0) {
    c.header('Retry-After', String(Math.ceil(retryAfterMs / 1000)));
  }
  return c.json({ success: false, error: failure.toJSON() }, status);
}
