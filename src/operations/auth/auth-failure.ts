import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { AuthFailureReason } from './auth-identity.js';

/** A GatewayError for an authentication failure, with the reason the HTTP layer maps to headers. */
export function authFailure(
  code: 'unauthorized' | 'forbidden',
  reason: AuthFailureReason,
  message: string,
): GatewayError {
  return new GatewayError(code, message, { details: { reason } });
}
