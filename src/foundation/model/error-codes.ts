/**
 * The closed set of error codes Aperture speaks on every surface. Stable, snake_case, part of the
 * public contract: clients branch on them. Adding a code forces an entry in every table of
 * `error-tables.ts`, so a new code cannot ship unmapped.
 */
export const GATEWAY_ERROR_CODES = [
  'tool_not_found',
  'validation_input',
  'validation_output',
  'execution_failed',
  'timeout',
  'cancelled',
  'unauthorized',
  'auth_required',
  'forbidden',
  'tool_quarantined',
  'approval_denied',
  'approval_timeout',
  'rate_limited',
  'backend_unavailable',
  'payload_too_large',
  'invalid_request',
  'not_found',
  'method_not_allowed',
  'unsupported_media_type',
  'chain_step_failed',
  'sandbox_violation',
  'config_invalid',
  'internal',
] as const;

export type GatewayErrorCode = (typeof GATEWAY_ERROR_CODES)[number];

/** True when `value` is one of the codes above. */
export function isGatewayErrorCode(value: unknown): value is GatewayErrorCode {
  return typeof value === 'string' && (GATEWAY_ERROR_CODES as readonly string[]).includes(value);
}
