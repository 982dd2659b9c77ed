import { isRecord } from '../foundation/util/is-record.js';
import { isSensitiveKey, REDACTED } from '../operations/secrets/sensitive-key.js';

/**
 * Keys whose every value is a credential or may carry one even though the name does not say so:
 * an API key entry's `key`, a server's `env` and `headers` (any variable or header may be a token).
 */
const WHOLLY_SECRET = new Set(['env', 'headers']);

/**
 * The effective config as the console shows it: values under credential-like keys replaced by
 * `[REDACTED]`, every value of `env` and `headers` too, and every string passed through `mask`
 * (the resolved `${secret:…}`/`${env:…}` values, wherever they were interpolated).
 */
export function maskedConfig(config: unknown, mask: (text: string) => string): unknown {
  const walk = (value: unknown, key: string | undefined, depth: number): unknown => {
    if (key !== undefined && WHOLLY_SECRET.has(key) && isRecord(value)) {
      return Object.fromEntries(Object.keys(value).map((k) => [k, REDACTED]));
    }
    // A container under a credential-like key (`apiKeys`) is walked: its entries' own keys decide.
    const scalar = value !== undefined && value !== null && typeof value !== 'object';
    if (key !== undefined && scalar && (isSensitiveKey(key) || key === 'key')) return REDACTED;
    if (typeof value === 'string') return mask(value);
    if (depth > 32) return '[…]';
    if (Array.isArray(value)) return value.map((item) => walk(item, undefined, depth + 1));
    if (isRecord(value)) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, k, depth + 1)]));
    }
    return value;
  };
  return walk(config, undefined, 0);
}
