import { ERROR_CODE_TABLE } from '../../foundation/model/error-tables.js';
import { type GatewayError, toGatewayError } from '../../foundation/model/gateway-error.js';
import type { Tool } from '../../foundation/model/tool.js';

/**
 * Whether a failed call of `tool` may be made again. Both must hold:
 *
 * - the tool is read-only or idempotent. A failure does not prove that nothing happened (a
 *   connection that closed mid-call may have delivered it), so running a tool with side effects
 *   again could do them twice;
 * - the failure is marked retryable and is not the caller's fault (`backend_unavailable`, a
 *   `timeout` reported by the downstream server); a tool's own error (`execution_failed`), bad
 *   input or a refusal would only fail the same way again.
 *
 * Whether the caller's signal is still live is the retry loop's business: the pipeline's own
 * timeout and the client's cancellation abort it, and then nothing is retried.
 */
export function isRetryable(tool: Pick<Tool, 'annotations'>, failure: unknown): boolean {
  if (tool.annotations.readOnlyHint !== true && tool.annotations.idempotentHint !== true) return false;
  const error: GatewayError = toGatewayError(failure);
  return error.retryable && !ERROR_CODE_TABLE[error.code].callerFault;
}

/** The wait an error asks for before another try (`details.retryAfterMs`), when it names one. */
export function retryAfterMs(failure: unknown): number | undefined {
  const value = toGatewayError(failure).details?.retryAfterMs;
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}
