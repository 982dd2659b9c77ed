/*
 * Records keyed by names that come from outside (schema property names, argument names, patch
 * keys) must treat `__proto__`, `constructor` and `prototype` as plain keys: `record[key] = v`
 * with `__proto__` replaces the prototype instead of adding a key, and `record[key]` or `key in
 * record` finds inherited members (`constructor`) that were never set.
 */

/** The value `record` holds under `key` itself, never one it inherits. */
export function ownValue(record: object, key: string): unknown {
  return Object.hasOwn(record, key) ? (record as Record<string, unknown>)[key] : undefined;
}

/** Sets `key` on `record` as an ordinary own property, even when it is `__proto__`. */
export function setOwn(record: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(record, key, { value, writable: true, enumerable: true, configurable: true });
}
