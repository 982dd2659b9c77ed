import { GatewayError } from '../../foundation/model/gateway-error.js';

/**
 * The error of a server process that could not be started. A command that does not exist
 * (ENOENT) will not appear by retrying: that failure is marked `permanent` (see
 * {@link isPermanentFailure}), and the supervisor stops retrying until `reconnect` (or a reload
 * that changes the entry). Other spawn errors (EAGAIN, EMFILE: the machine is short of something) stay retryable.
 */
export function spawnFailure(command: string, error: NodeJS.ErrnoException): GatewayError {
  if (error.code === 'ENOENT') {
    return new GatewayError(
      'backend_unavailable',
      `cannot start "${command}": command not found (not installed, or not on the gateway's PATH)`,
      { cause: error, retryable: false, details: { permanent: true, reason: 'command_not_found', command } },
    );
  }
  return new GatewayError('backend_unavailable', `cannot start "${command}": ${error.message}`, {
    cause: error,
  });
}

/**
 * Whether `error`, or an error it wraps (`cause`: connecting wraps what the transport threw),
 * is a failure that retrying cannot fix: a GatewayError whose details say `permanent`.
 */
export function isPermanentFailure(error: unknown): GatewayError | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 10; depth++) {
    if (current instanceof GatewayError && current.details?.permanent === true) return current;
    current = current.cause;
  }
  return undefined;
}
