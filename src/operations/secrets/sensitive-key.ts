/**
 * What a redacted value becomes, everywhere: log lines, call logs, masked error messages and
 * status reports. One constant, so a reader (and a test) knows what to look for.
 */
export const REDACTED = '[REDACTED]';

/**
 * Key names whose values are credentials, compared after lower-casing and dropping everything but
 * letters and digits, so `API-Key`, `api_key` and `apiKey` are one name. A key matches when it is
 * one of these or ends with one (`github_token`, `client_secret`, `X-Api-Key`, `db_password`), but
 * not merely because it contains one: `max_tokens` and `tokenizer` are left alone.
 *
 * The one rule for every redactor (call logs' arguments, log lines, config values): two lists
 * drifted apart before, and `github_token` was hidden in one place and written in another.
 */
export const SENSITIVE_KEY_SUFFIXES: readonly string[] = [
  'apikey',
  'token',
  'password',
  'passwd',
  'passphrase',
  'secret',
  'secretkey',
  'accesskey',
  'privatekey',
  // Keys that are key material though their name ends in "key" only: the OAuth token store's
  // `state.tokenKey`, and their kin. (`publicKey` is public; a bare `key` is decided by its place.)
  'tokenkey',
  'encryptionkey',
  'signingkey',
  'masterkey',
  'hmackey',
  'authorization',
  'auth',
  'bearer',
  'credential',
  'credentials',
  'cookie',
  'cookies',
];

/** Whether values under `key` are credentials (see {@link SENSITIVE_KEY_SUFFIXES}). */
export function isSensitiveKey(key: string): boolean {
  const name = key.toLowerCase().replace(/[^a-z0-9]/g, '');
  return SENSITIVE_KEY_SUFFIXES.some((suffix) => name.endsWith(suffix));
}

/**
 * A regular expression that finds, in serialized JSON, every key {@link isSensitiveKey} accepts
 * (and a few it does not): a cheap first test before a line is parsed. Separators may sit between
 * the letters of a suffix (`api_key`, `Api-Key`), as the rule ignores them.
 */
export function sensitiveJsonKeyPattern(): RegExp {
  const gap = '[^A-Za-z0-9"]*';
  // Every suffix ending in "key" is found by "key" alone: fewer alternatives to try at every
  // character of every line, for a few more lines handed to the exact rule.
  const distinct = new Set(SENSITIVE_KEY_SUFFIXES.map((suffix) => (suffix.endsWith('key') ? 'key' : suffix)));
  const suffixes = [...distinct].map((suffix) => [...suffix].join(gap));
  return new RegExp(`(?:${suffixes.join('|')})${gap}"\\s*:`, 'i');
}
