import { GatewayError } from '../../src/foundation/model/gateway-error.js';

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

/**
 * Runs `fn`, which must refuse its options: throw a GatewayError `config_invalid` (the one error of
 * a factory's option checks). Returns the message for assertions.
 */
export function optionFailure(fn: () => unknown): string {
  const error = failureOf(fn);
  if (error.code !== 'config_invalid')
    throw new Error(`expected config_invalid, got ${error.code}: ${error.message}`);
  return error.message;
}
