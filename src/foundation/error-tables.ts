import type { GatewayErrorCode } from './error-codes.js';

/** A2A task states a failure can end in (A2A protocol, TaskState). */
export type A2ATaskState = 'failed' | 'canceled' | 'rejected' | 'auth-required';

/** How each code is presented on each surface, and whose fault it is. */
export interface ErrorCodeInfo {
  /** HTTP status for REST answers and HTTP-level failures. */
  readonly httpStatus: number;
  /**
   * MCP presentation: `tool_error` is a CallToolResult with `isError: true` (the model can read it);
   * `protocol_error` is a JSON-RPC error (only for malformed protocol traffic).
   */
  readonly mcp: 'tool_error' | 'protocol_error';
  /** JSON-RPC error code used when the code is presented as a protocol error. */
  readonly jsonRpcCode: number;
  /** Terminal A2A task state. */
  readonly a2aState: A2ATaskState;
  /** Caller's fault (bad input, missing rights) rather than a backend or gateway failure. */
  readonly callerFault: boolean;
  /** Whether trying the same call again later may succeed, absent more specific knowledge. */
  readonly retryable: boolean;
}

const JSONRPC_INVALID_REQUEST = -32600;
const JSONRPC_INVALID_PARAMS = -32602;
const JSONRPC_INTERNAL = -32603;
const JSONRPC_SERVER = -32000;

/** Every code mapped; the `Record` type makes an unmapped code a compile error. */
export const ERROR_CODE_TABLE: Readonly<Record<GatewayErrorCode, ErrorCodeInfo>> = {
  tool_not_found: info(404, 'tool_error', JSONRPC_INVALID_PARAMS, 'rejected', true, false),
  validation_input: info(400, 'tool_error', JSONRPC_INVALID_PARAMS, 'rejected', true, false),
  validation_output: info(502, 'tool_error', JSONRPC_INTERNAL, 'failed', false, false),
  execution_failed: info(502, 'tool_error', JSONRPC_SERVER, 'failed', false, false),
  timeout: info(504, 'tool_error', JSONRPC_SERVER, 'failed', false, true),
  cancelled: info(499, 'tool_error', JSONRPC_SERVER, 'canceled', true, false),
  unauthorized: info(401, 'tool_error', JSONRPC_SERVER, 'auth-required', true, false),
  forbidden: info(403, 'tool_error', JSONRPC_SERVER, 'rejected', true, false),
  rate_limited: info(429, 'tool_error', JSONRPC_SERVER, 'rejected', true, true),
  backend_unavailable: info(503, 'tool_error', JSONRPC_SERVER, 'failed', false, true),
  payload_too_large: info(413, 'tool_error', JSONRPC_INVALID_PARAMS, 'rejected', true, false),
  invalid_request: info(400, 'tool_error', JSONRPC_INVALID_REQUEST, 'rejected', true, false),
  not_found: info(404, 'protocol_error', JSONRPC_INVALID_REQUEST, 'rejected', true, false),
  method_not_allowed: info(405, 'protocol_error', JSONRPC_INVALID_REQUEST, 'rejected', true, false),
  unsupported_media_type: info(415, 'protocol_error', JSONRPC_INVALID_REQUEST, 'rejected', true, false),
  chain_step_failed: info(424, 'tool_error', JSONRPC_SERVER, 'failed', false, false),
  sandbox_violation: info(422, 'tool_error', JSONRPC_SERVER, 'failed', true, false),
  config_invalid: info(500, 'protocol_error', JSONRPC_INTERNAL, 'failed', false, false),
  internal: info(500, 'tool_error', JSONRPC_INTERNAL, 'failed', false, false),
};

function info(
  httpStatus: number,
  mcp: ErrorCodeInfo['mcp'],
  jsonRpcCode: number,
  a2aState: A2ATaskState,
  callerFault: boolean,
  retryable: boolean,
): ErrorCodeInfo {
  return { httpStatus, mcp, jsonRpcCode, a2aState, callerFault, retryable };
}

/** HTTP status for a code (tRPC's `getHTTPStatusCode` counterpart). */
export function httpStatusOf(code: GatewayErrorCode): number {
  return ERROR_CODE_TABLE[code].httpStatus;
}
