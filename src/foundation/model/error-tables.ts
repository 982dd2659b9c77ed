import type { GatewayErrorCode } from './error-codes.js';

/** A2A task states a failure can end in (A2A protocol, TaskState). */
export type A2ATaskState = 'failed' | 'canceled' | 'rejected' | 'auth-required';

/** Whose doing a failure is: who has to act for the call to succeed. */
export type ErrorFault = 'caller' | 'backend' | 'gateway';

/** How each code is presented on each surface, and whose fault it is. */
export interface ErrorCodeInfo {
  /** HTTP status of every HTTP answer carrying the code (REST, MCP and A2A endpoints). */
  readonly httpStatus: number;
  /**
   * JSON-RPC error code when the code ends a JSON-RPC request as a protocol error (an MCP endpoint
   * refusing a request, a relayed MCP request failing). Inside `tools/call` every code is a
   * CallToolResult with `isError: true` instead, which the model can read (docs/ERRORS.md).
   */
  readonly jsonRpcCode: number;
  /** Terminal A2A task state. */
  readonly a2aState: A2ATaskState;
  /** Who has to act: the caller (bad input, missing rights), a backend, or the gateway itself. */
  readonly fault: ErrorFault;
  /** `fault === 'caller'`: never retried, never a server-fault status. */
  readonly callerFault: boolean;
  /** Whether trying the same call again later may succeed, absent more specific knowledge. */
  readonly retryable: boolean;
}

/** JSON-RPC 2.0 §5.1 codes, and the MCP SDK's own "Session not found". */
export const JSONRPC_PARSE_ERROR = -32700;
const JSONRPC_INVALID_REQUEST = -32600;
const JSONRPC_INVALID_PARAMS = -32602;
const JSONRPC_INTERNAL = -32603;
/** JSON-RPC's range for implementation-defined server errors starts here. */
const JSONRPC_SERVER = -32000;
/** What the MCP SDK's Streamable HTTP transport answers an unknown session with (HTTP 404). */
const JSONRPC_SESSION_NOT_FOUND = -32001;

/** Every code mapped; the `Record` type makes an unmapped code a compile error. */
export const ERROR_CODE_TABLE: Readonly<Record<GatewayErrorCode, ErrorCodeInfo>> = {
  tool_not_found: row({
    httpStatus: 404,
    // MCP: an unknown tool in tools/call is -32602 (what the SDK's own server sends).
    jsonRpcCode: JSONRPC_INVALID_PARAMS,
    a2aState: 'rejected',
    fault: 'caller',
    retryable: false,
  }),
  validation_input: row({
    httpStatus: 400,
    jsonRpcCode: JSONRPC_INVALID_PARAMS,
    a2aState: 'rejected',
    fault: 'caller',
    retryable: false,
  }),
  validation_output: row({
    httpStatus: 502,
    jsonRpcCode: JSONRPC_INTERNAL,
    a2aState: 'failed',
    fault: 'backend',
    retryable: false,
  }),
  execution_failed: row({
    httpStatus: 502,
    jsonRpcCode: JSONRPC_SERVER,
    a2aState: 'failed',
    fault: 'backend',
    retryable: false,
  }),
  timeout: row({
    httpStatus: 504,
    jsonRpcCode: JSONRPC_SERVER,
    a2aState: 'failed',
    fault: 'backend',
    retryable: true,
  }),
  cancelled: row({
    httpStatus: 499,
    jsonRpcCode: JSONRPC_SERVER,
    a2aState: 'canceled',
    fault: 'caller',
    retryable: false,
  }),
  unauthorized: row({
    httpStatus: 401,
    jsonRpcCode: JSONRPC_SERVER,
    a2aState: 'auth-required',
    fault: 'caller',
    retryable: false,
  }),
  // A downstream server needs a login (OAuth) that the caller — or the operator — has to do; the
  // gateway and the server are fine. 401 like `unauthorized`, with the login in `details`.
  auth_required: row({
    httpStatus: 401,
    jsonRpcCode: JSONRPC_SERVER,
    a2aState: 'auth-required',
    fault: 'caller',
    retryable: false,
  }),
  // A valid request the caller has no right to make: a server-defined error, not -32600 (which
  // JSON-RPC reserves for JSON that is not a Request object).
  forbidden: row({
    httpStatus: 403,
    jsonRpcCode: JSONRPC_SERVER,
    a2aState: 'rejected',
    fault: 'caller',
    retryable: false,
  }),
  // A changed or flagged downstream tool held back until an operator approves it: an access
  // decision like `forbidden`, not a backend failure — never retried, never counted against the
  // server's circuit or failure statistics.
  tool_quarantined: row({
    httpStatus: 403,
    jsonRpcCode: JSONRPC_SERVER,
    a2aState: 'rejected',
    fault: 'caller',
    retryable: false,
  }),
  // A call a policy rule held for approval and a person declined (in the client's elicitation or
  // the admin queue): a decision about this call, like `forbidden` — never retried.
  approval_denied: row({
    httpStatus: 403,
    jsonRpcCode: JSONRPC_SERVER,
    a2aState: 'rejected',
    fault: 'caller',
    retryable: false,
  }),
  // Nobody answered a held call within `approvals.timeoutMs`. No backend was reached and nothing
  // failed: the caller may ask again later (someone may be there then), so retryable, but a
  // caller's matter (4xx: 408 Request Timeout), never a backend's 504.
  approval_timeout: row({
    httpStatus: 408,
    jsonRpcCode: JSONRPC_SERVER,
    a2aState: 'rejected',
    fault: 'caller',
    retryable: true,
  }),
  rate_limited: row({
    httpStatus: 429,
    jsonRpcCode: JSONRPC_SERVER,
    a2aState: 'rejected',
    fault: 'caller',
    retryable: true,
  }),
  backend_unavailable: row({
    httpStatus: 503,
    jsonRpcCode: JSONRPC_SERVER,
    a2aState: 'failed',
    fault: 'backend',
    retryable: true,
  }),
  // A request body over the limit is a request the server will not take as a whole: -32600.
  payload_too_large: row({
    httpStatus: 413,
    jsonRpcCode: JSONRPC_INVALID_REQUEST,
    a2aState: 'rejected',
    fault: 'caller',
    retryable: false,
  }),
  // A body that is not JSON at all is -32700 (`jsonRpcCodeOf`), not a code of its own.
  invalid_request: row({
    httpStatus: 400,
    jsonRpcCode: JSONRPC_INVALID_REQUEST,
    a2aState: 'rejected',
    fault: 'caller',
    retryable: false,
  }),
  not_found: row({
    httpStatus: 404,
    jsonRpcCode: JSONRPC_SESSION_NOT_FOUND,
    a2aState: 'rejected',
    fault: 'caller',
    retryable: false,
  }),
  method_not_allowed: row({
    httpStatus: 405,
    jsonRpcCode: JSONRPC_INVALID_REQUEST,
    a2aState: 'rejected',
    fault: 'caller',
    retryable: false,
  }),
  unsupported_media_type: row({
    httpStatus: 415,
    jsonRpcCode: JSONRPC_INVALID_REQUEST,
    a2aState: 'rejected',
    fault: 'caller',
    retryable: false,
  }),
  chain_step_failed: row({
    httpStatus: 424,
    jsonRpcCode: JSONRPC_SERVER,
    a2aState: 'failed',
    fault: 'backend',
    retryable: false,
  }),
  sandbox_violation: row({
    httpStatus: 422,
    jsonRpcCode: JSONRPC_SERVER,
    a2aState: 'failed',
    fault: 'caller',
    retryable: false,
  }),
  config_invalid: row({
    httpStatus: 500,
    jsonRpcCode: JSONRPC_INTERNAL,
    a2aState: 'failed',
    fault: 'gateway',
    retryable: false,
  }),
  internal: row({
    httpStatus: 500,
    jsonRpcCode: JSONRPC_INTERNAL,
    a2aState: 'failed',
    fault: 'gateway',
    retryable: false,
  }),
};

function row(fields: Omit<ErrorCodeInfo, 'callerFault'>): ErrorCodeInfo {
  return { ...fields, callerFault: fields.fault === 'caller' };
}

/** HTTP status for a code (tRPC's `getHTTPStatusCode` counterpart). */
export function httpStatusOf(code: GatewayErrorCode): number {
  return ERROR_CODE_TABLE[code].httpStatus;
}

/**
 * JSON-RPC error code for an error. JSON-RPC's "Parse error" is not a gateway code of its own: a
 * body that is not JSON is the caller's `invalid_request`, told apart by its `SyntaxError` cause.
 */
export function jsonRpcCodeOf(error: { readonly code: GatewayErrorCode; readonly cause?: unknown }): number {
  if (error.code === 'invalid_request' && error.cause instanceof SyntaxError) return JSONRPC_PARSE_ERROR;
  return ERROR_CODE_TABLE[error.code].jsonRpcCode;
}
