import { GatewayError } from '../../src/foundation/gateway-error.js';

/** Awaits `promise`, which must reject with a GatewayError; returns that error for assertions. */
export async function failure(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a GatewayError');
}

/** Runs `fn`, which must throw a GatewayError; returns that error for assertions. */
export function failureOf(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a GatewayError');
}
