/** A config as two parts: what its file set, and what it left as the defaults have it. */
export interface ConfigSplit {
  /** Every value that differs from its default (whole, when the default has no such key). */
  set: Record<string, unknown>;
  /** Every value equal to its default. */
  unchanged: Record<string, unknown>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Splits the effective config against the config with nothing set: an object is walked key by
 * key (so `server.port` set beside a default `server.host` lands in `set` alone); anything else —
 * an array, a value, a key the defaults lack (a server's entry) — is compared whole.
 */
export function splitConfig(config: unknown, defaults: unknown): ConfigSplit {
  const set: Record<string, unknown> = {};
  const unchanged: Record<string, unknown> = {};
  if (!isObject(config)) return { set, unchanged };
  for (const [key, value] of Object.entries(config)) {
    const fallback = isObject(defaults) ? defaults[key] : undefined;
    if (isObject(value) && isObject(fallback)) {
      const inner = splitConfig(value, fallback);
      if (Object.keys(inner.set).length > 0) set[key] = inner.set;
      if (Object.keys(inner.unchanged).length > 0) unchanged[key] = inner.unchanged;
    } else if (fallback !== undefined && same(value, fallback)) unchanged[key] = value;
    else set[key] = value;
  }
  return { set, unchanged };
}
