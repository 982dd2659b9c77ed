import { isSensitiveKey } from '../operations/secrets/sensitive-key.js';
import { findReferences } from './interpolate.js';

/**
 * Keys whose values travel to a source and may carry a credential: URLs (a key in the query
 * string), headers, a child's environment and arguments, provider keys and endpoints. An
 * interpolated value under one of them, at any depth, is masked.
 */
const CARRIER_KEYS = new Set([
  'url',
  'baseUrl',
  'spec',
  'endpoint',
  'headers',
  'env',
  'args',
  'apiKey',
  'key',
]);

/** Keys whose string values are URLs a source is reached at. */
const URL_KEYS = new Set(['url', 'baseUrl', 'spec', 'endpoint']);

/**
 * The values of a config that are credentials and must be masked wherever they might show
 * (logs, `/readyz`, error messages, doctor output):
 * - every `${env:…}` value interpolated into a URL, header, env entry or argument (see
 *   {@link CARRIER_KEYS}): whoever wrote `?api_key=${env:X}` kept the key out of the file because
 *   it is one; other references (`server.port`, a `cwd`) are left readable;
 * - literal values under credential names anywhere: headers, env entries, provider keys
 *   (`Authorization`, `X-Api-Key`, `GITHUB_TOKEN`, `apiKey`: the shared `isSensitiveKey` rule);
 * - in source URLs, the password of `user:password@` and the values of query parameters under
 *   credential names (`?api_key=…`, `?access_token=…`).
 *
 * `raw` is the document before interpolation (to see where references were), `config` the one
 * after.
 */
export function credentialValues(
  raw: unknown,
  config: unknown,
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  const found: string[] = [];
  for (const reference of findReferences(raw, 'env')) {
    if (!reference.path.some((key) => typeof key === 'string' && CARRIER_KEYS.has(key))) continue;
    const value = env[reference.name];
    if (value !== undefined) found.push(value);
  }
  collectSentCredentials(config, found);
  return found;
}

function collectSentCredentials(value: unknown, found: string[]): void {
  if (Array.isArray(value)) {
    for (const item of value) collectSentCredentials(item, found);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  for (const [name, item] of Object.entries(value)) {
    // A credential name anywhere (a header, an env entry, `search.embedder.apiKey`).
    if (typeof item === 'string' && isSensitiveKey(name)) {
      found.push(item);
    } else if (URL_KEYS.has(name) && typeof item === 'string') {
      found.push(...urlCredentials(item));
    } else {
      collectSentCredentials(item, found);
    }
  }
}

function urlCredentials(text: string): string[] {
  if (!URL.canParse(text)) return [];
  const url = new URL(text);
  const found: string[] = [];
  if (url.password !== '') found.push(url.password, decodeURIComponent(url.password));
  for (const [name, value] of url.searchParams) {
    if (value !== '' && isSensitiveKey(name)) found.push(value, encodeURIComponent(value));
  }
  return found;
}
