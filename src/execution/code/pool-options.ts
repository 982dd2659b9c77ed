import { GatewayError } from '../../foundation/gateway-error.js';

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
