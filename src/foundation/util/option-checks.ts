import { GatewayError } from '../model/gateway-error.js';

/*
 * The checks `name(options)` factories run on their options at once (docs/DESIGN.md §6.5). Config
 * values arrive validated by the zod schema; these catch programmatic misuse and whatever the
 * schema cannot know. Every failed check is the same error: `config_invalid` (the gateway was
 * set up wrong — not a caller's fault, and the CLI exits with 2), its message naming the option
 * and the value given.
 */

/** The error of a bad factory option: `config_invalid` with `<label> <problem>`. */
export function optionError(label: string, problem: string): GatewayError {
  return new GatewayError('config_invalid', `${label} ${problem}`, { details: { option: label } });
}

/** `value` if it is an integer ≥ `min`. */
export function integerAtLeast(value: number, min: number, label: string): number {
  if (!Number.isInteger(value) || value < min)
    throw optionError(label, `must be an integer ≥ ${min}, got ${value}`);
  return value;
}

/** `value` if it is a finite number > 0. */
export function positiveNumber(value: number, label: string): number {
  if (!Number.isFinite(value) || value <= 0) throw optionError(label, `must be a number > 0, got ${value}`);
  return value;
}

/** `value` if it is a finite number in [min, max] (max defaults to no bound). */
export function numberInRange(value: number, min: number, max: number, label: string): number {
  if (!(Number.isFinite(value) && value >= min && value <= max)) {
    const range = max === Number.POSITIVE_INFINITY ? `≥ ${min}` : `between ${min} and ${max}`;
    throw optionError(label, `must be a number ${range}, got ${value}`);
  }
  return value;
}

/** `value` if it is one of `allowed`. */
export function oneOf<T extends string>(value: T, allowed: readonly T[], label: string): T {
  if (!allowed.includes(value)) {
    const list = allowed.map((item) => `"${item}"`).join(' or ');
    throw optionError(label, `must be ${list}, got ${JSON.stringify(value) ?? String(value)}`);
  }
  return value;
}
