import { GatewayError } from '../../foundation/model/gateway-error.js';

/** The sandboxes' default pool bounds (the config's `codeMode` section defaults to them). */
export const SANDBOX_POOL_DEFAULTS = Object.freeze({
  /** Runners (workers, processes) at once. */
  poolSize: 2,
  /** Runs waiting for a runner at most; more are refused. */
  maxQueue: 64,
  /** The process sandbox: runs one process serves before it is replaced (1: a fresh one per run). */
  maxRunsPerProcess: 1,
});

/** Checks that `value` is an integer in [min, max]; `config_invalid` names the option otherwise. */
export function integerOption(
  name: string,
  value: number | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  const chosen = value ?? fallback;
  if (!Number.isInteger(chosen) || chosen < min || chosen > max) {
    throw new GatewayError(
      'config_invalid',
      `${name} must be an integer from ${min} to ${max} (got ${String(value)})`,
      {
        details: { option: name },
      },
    );
  }
  return chosen;
}
