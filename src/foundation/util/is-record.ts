/**
 * True for a JSON-like object — a parsed config section, a schema node, a request body — and
 * false for arrays, `null` and primitives. The one guard for "is this a `{…}`" across the code
 * base; it does not look at the prototype (class instances pass), which no caller needs.
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
