import { isRecord } from '../foundation/util/is-record.js';
import { isSensitiveKey, REDACTED } from '../operations/secrets/sensitive-key.js';

/** Keys whose entries are a server's environment and headers: shown entry by entry by {@link shownEntry}. */
const ENTRY_MAPS = new Set(['env', 'headers']);

/**
 * Names of environment variables and headers that hold credentials, beyond the shared suffix rule
 * of `isSensitiveKey`: anywhere in the name (`GITHUB_TOKEN_FILE`, `DB_PASS`, `X-Session-Id`),
 * since an env name is not a config key with a known meaning and hiding a harmless value costs
 * little.
 */
const CREDENTIAL_NAME =
  /token|secret|passw|pass$|pwd|api[_-]?key|apikey|access[_-]?key|private|credential|auth|cookie|session|signature|(^|[_-])key$|^key$/i;

/** Well-known credential shapes: GitHub, OpenAI/Anthropic/Stripe, Slack, AWS, Google, GitLab, JWTs, HTTP schemes. */
const CREDENTIAL_SHAPE =
  /^(gh[pousr]_|github_pat_|sk-|sk_(live|test)_|rk_(live|test)_|xox[abprs]-|AKIA|ASIA|AIza|glpat-|ya29\.|eyJ[A-Za-z0-9_-]{8,}\.)|^(bearer|basic|token|digest)\s/i;

/**
 * Whether a literal env or header value looks like a credential though its name does not say so:
 * a known token shape, a URL carrying a password or a credential query parameter, or a long
 * opaque run of letters and digits (a key someone pasted under a neutral name).
 */
function looksLikeCredential(value: string): boolean {
  const text = value.trim();
  if (CREDENTIAL_SHAPE.test(text)) return true;
  if (URL.canParse(text)) {
    const url = new URL(text);
    if (url.password !== '') return true;
    for (const name of url.searchParams.keys())
      if (isSensitiveKey(name) || CREDENTIAL_NAME.test(name)) return true;
    return false;
  }
  // Paths (`/srv/data`, `./x`, `~/y`) and prose are not opaque; 20+ characters of mixed letters
  // and digits with no space are.
  return (
    /^[A-Za-z0-9_\-+/=.]{20,}$/.test(text) && /\d/.test(text) && /[A-Za-z]/.test(text) && !/^[./~]/.test(text)
  );
}

/**
 * What the console shows for one entry of a server's `env` or `headers`: the value itself when it
 * is plainly not a credential (`LOG_LEVEL: debug`, `X-Tenant: acme`), else `[REDACTED]`. Masked:
 * - a value resolved from `${secret:…}` or `${env:…}` (the masker knows it: every such value in an
 *   `env` or `headers` entry is collected into the config's secret values) — whoever wrote a
 *   reference kept the value out of the file because it is one;
 * - any value under a credential-looking name, literal in the file or not (`GITHUB_TOKEN: ghp_…`);
 * - a literal that looks like a credential by its shape (see {@link looksLikeCredential}).
 */
function shownEntry(name: string, value: unknown, mask: (text: string) => string): unknown {
  if (typeof value !== 'string') return REDACTED;
  if (isSensitiveKey(name) || CREDENTIAL_NAME.test(name)) return REDACTED;
  if (mask(value) !== value) return REDACTED;
  if (looksLikeCredential(value)) return REDACTED;
  return value;
}

/**
 * The effective config as the console shows it: values under credential-like keys replaced by
 * `[REDACTED]`, the entries of `env` and `headers` shown only when plainly not credentials
 * ({@link shownEntry}), and every string passed through `mask` (the resolved `${secret:…}`/`${env:…}`
 * values, wherever they were interpolated).
 */
export function maskedConfig(config: unknown, mask: (text: string) => string): unknown {
  const walk = (value: unknown, key: string | undefined, depth: number): unknown => {
    if (key !== undefined && ENTRY_MAPS.has(key) && isRecord(value)) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shownEntry(k, v, mask)]));
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
