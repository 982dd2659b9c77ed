/*
 * Option checks for the operations factories (docs/DESIGN.md §6.5: a factory validates its options at
 * once). Config values arrive validated by the zod schema; these catch programmatic misuse.
 */

/** `value` if it is an integer ≥ `min`; a RangeError naming `label` otherwise. */
export function integerAtLeast(value: number, min: number, label: string): number {
  if (!Number.isInteger(value) || value < min) {
    throw new RangeError(`${label} must be an integer ≥ ${min}, got ${value}`);
  }
  return value;
}

/** `value` if it is a finite number > 0; a RangeError naming `label` otherwise. */
export function positiveNumber(value: number, label: string): number {
  if (!Number.isFinite(value) || value <= 0)
    throw new RangeError(`${label} must be a number > 0, got ${value}`);
  return value;
}
