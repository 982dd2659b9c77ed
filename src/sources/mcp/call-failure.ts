import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { GatewayError, toGatewayError } from '../../foundation/model/gateway-error.js';
import { bareRpcMessage } from '../../foundation/util/bare-rpc-message.js';

export interface CallFailureContext {
  /** The server's name (the key in `servers`). */
  server: string;
  /** The call's signal: a call the pipeline aborted fails for the abort's reason. */
  signal: AbortSignal;
  /** The incident of the connection the call went out on (for a connection that closed). */
  incident: () => string;
}

/**
 * What a failed downstream call becomes: the abort's reason when the pipeline aborted it, the
 * connection closing as `backend_unavailable` carrying that connection's incident, the SDK's
 * request timeout as `timeout`, an error the server answered as `execution_failed` with its
 * JSON-RPC code, and a transport failure as `backend_unavailable` — all naming the server.
 */
export function callFailure(error: unknown, context: CallFailureContext): GatewayError {
  const { server, signal } = context;
  if (signal.aborted) return toGatewayError(signal.reason ?? error);
  if (error instanceof GatewayError) return error;
  if (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed) {
    // Every call in flight on a connection that closed fails with the same incident: the
    // crash is one event for the circuit breaker, not one failure per call it took down.
    return new GatewayError(
      'backend_unavailable',
      `server "${server}" closed the connection during the call`,
      {
        details: { server, incident: context.incident() },
      },
    );
  }
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
    return new GatewayError('timeout', `server "${server}" did not answer in time`);
  }
  if (error instanceof ProtocolError && error.data instanceof GatewayError) {
    // A failure the transport raised in the server's stead (an answer over the line limit): the
    // object cannot come from the wire, so its code stands.
    const own = error.data;
    return new GatewayError(own.code, `server "${server}": ${own.message}`, {
      details: { ...own.details, server },
    });
  }
  if (error instanceof ProtocolError) {
    // The JSON-RPC code travels in details; the SDK's "MCP error <code>: " prefix is noise.
    const message = bareRpcMessage(error.message);
    return new GatewayError('execution_failed', `server "${server}": ${message}`, {
      details: { server, rpcCode: error.code },
    });
  }
  const failure = toGatewayError(error);
  if (failure.code === 'internal') {
    return new GatewayError('backend_unavailable', `server "${server}": ${failure.message}`, {
      cause: error,
      details: { server },
    });
  }
  return failure;
}

/** An HTTP server that no longer knows our session answers 404 (the spec's "session not found"). */
export function isSessionLost(error: unknown): boolean {
  if (error instanceof SdkHttpError) return error.status === 404;
  const code = (error as { code?: unknown }).code;
  if (code === 404) return true;
  const message = String((error as Error)?.message ?? '');
  return /session not found/i.test(message);
}

/**
 * A transport error saying the connection's event stream could not be resumed because the server
 * no longer knows the session (the SDK reports it through `onerror`, never to a request: calls in
 * flight would wait for ever).
 */
export function isStreamSessionLost(error: unknown): boolean {
  const message = String((error as Error)?.message ?? '');
  return /SSE stream/i.test(message) && /\b404\b|not found/i.test(message);
}

/** The error of a call that was in flight when its server restarted (lost the session), not retried. */
export function restartedDuringCall(server: string, incident: string): GatewayError {
  return new GatewayError(
    'backend_unavailable',
    `server "${server}" restarted during the call (it lost its session); the call may have run, so it was not sent again (the tool is neither read-only nor idempotent)`,
    { details: { server, restarted: true, incident } },
  );
}
