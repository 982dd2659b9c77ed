import { REDACTED } from './sensitive-key.js';

/**
 * Makes the function that replaces every resolved secret value in a text with `[REDACTED]` (for
 * error messages and status reports that leave the gateway; log lines have their own redactor).
 * Without secrets it returns its input untouched.
 */
export function createSecretMasker(values: readonly string[] = []): (text: string) => string {
  const unique = [...new Set(values.filter((value) => value !== ''))].sort((a, b) => b.length - a.length);
  if (unique.length === 0) return (text) => text;
  const pattern = new RegExp(unique.map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
  return (text) => text.replace(pattern, REDACTED);
}

/**
 * A copy of a JSON-like value with `mask` applied to every string in it (keys left alone): for
 * reports that leave the gateway as structures (`/readyz`, doctor's JSON).
 */
export function maskStrings<T>(value: T, mask: (text: string) => string): T {
  return maskValue(value, mask) as T;
}

function maskValue(value: unknown, mask: (text: string) => string): unknown {
  if (typeof value === 'string') return mask(value);
  if (Array.isArray(value)) return value.map((item) => maskValue(item, mask));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, maskValue(item, mask)]));
}
