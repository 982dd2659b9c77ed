/**
 * JSON text of `value` with every object's keys sorted, so that two argument objects that differ
 * only in key order give the same text (and the same cache key). Arrays keep their order. Follows
 * JSON.stringify otherwise: `undefined` members are left out, non-finite numbers become null,
 * `toJSON` is honoured.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, sortKeys) ?? 'null';
}

function sortKeys(_key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const source = value as Record<string, unknown>;
  const keys = Object.keys(source);
  // Already in order (the common case for small argument objects): no copy needed.
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i++) sorted = (keys[i - 1] as string) < (keys[i] as string);
  if (sorted) return value;
  const copy: Record<string, unknown> = {};
  for (const key of keys.sort()) copy[key] = source[key];
  return copy;
}
