import { GatewayError } from '../foundation/model/gateway-error.js';

/**
 * A port that cannot be had is the caller's to fix (another port, another address), told in one
 * line with the way to fix it; anything else stays what it was.
 */
export function listenFailure(error: unknown, hostname: string, port: number): unknown {
  const code = (error as { code?: unknown }).code;
  if (code === 'EADDRINUSE') {
    return new GatewayError('config_invalid', `port ${port} is already in use; choose another with --port`, {
      details: { path: 'server.port', host: hostname, port },
      cause: error,
    });
  }
  if (code === 'EACCES') {
    return new GatewayError(
      'config_invalid',
      `port ${port} needs privileges this process does not have; choose one above 1023 with --port`,
      { details: { path: 'server.port', host: hostname, port }, cause: error },
    );
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
    return new GatewayError(
      'config_invalid',
      `cannot listen on ${hostname}: no such local address; choose another with --host`,
      {
        details: { path: 'server.host', host: hostname, port },
        cause: error,
      },
    );
  }
  return error;
}
