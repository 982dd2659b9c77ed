import { REDACTED } from './log-redactor.js';

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
