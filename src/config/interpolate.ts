import { GatewayError } from '../foundation/model/gateway-error.js';
import { isValidSecretName, SECRET_NAME_RULE } from '../operations/secrets/secret-provider.js';

/** A key path inside the config document, as zod and the walker produce it. */
export type ConfigPath = readonly PropertyKey[];

/**
 * Formats a key path for messages: `servers.github.headers.Authorization`, `servers.x.args[0]`,
 * `overrides["github:create_issue"].name`. Keys that are not plain words are quoted, so a path
 * is never ambiguous.
 */
export function formatConfigPath(path: ConfigPath): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z0-9_$-]+$/.test(key)) out += out === '' ? key : `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out === '' ? '(top level)' : out;
}

/** Looks a reference up; `undefined` means it does not exist. */
export type ReferenceResolver = (name: string) => string | undefined;

/**
 * One resolver per reference scheme. A scheme without a resolver is left untouched (escapes
 * included), so a later pass can resolve it.
 */
export interface InterpolationResolvers {
  env: ReferenceResolver;
  secret?: ReferenceResolver;
}

/** The reference schemes: `${env:NAME}`, `${secret:NAME}`, each with an optional `:-default`. */
export type Scheme = keyof InterpolationResolvers;

/** One `${scheme:NAME}` reference found in a config document (escaped ones are not references). */
export interface ConfigReference {
  name: string;
  path: ConfigPath;
  /** The text after `:-` in `${env:NAME:-default}`; used when nothing (or an empty string) resolves. */
  fallback?: string;
}

/**
 * Splits the inside of a reference into its name and `:-default` part, as in POSIX shells:
 * `NAME:-default` uses `default` when NAME is unset or empty; `NAME:-` means an empty default.
 */
export function splitReference(inner: string): { name: string; fallback?: string } {
  const at = inner.indexOf(':-');
  if (at === -1) return { name: inner.trim() };
  return { name: inner.slice(0, at).trim(), fallback: inner.slice(at + 2) };
}

/**
 * The message for a reference nothing resolves, e.g. `Environment variable "GH_TOKEN" is not set
 * (used at servers.gh.headers.Authorization)`, `servers.remote.headers.Authorization: secret
 * "REMOTE_TOKEN" is not defined`.
 */
export function undefinedReferenceMessage(scheme: Scheme, name: string, path: ConfigPath): string {
  const where = formatConfigPath(path);
  return scheme === 'env'
    ? `Environment variable "${name}" is not set (used at ${where})`
    : `${where}: secret "${name}" is not defined`;
}

// `$${env:X}` (escape) or `${env:X}`. Other `${…}` forms (shell's `${HOME:-x}` in an argument) are
// not references and must survive untouched, hence the closed list of schemes.
const REFERENCE = /(\$?)\$\{(env|secret):([^}]*)\}/g;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function interpolateString(text: string, resolvers: InterpolationResolvers, path: ConfigPath): string {
  return text.replace(REFERENCE, (match: string, escaped: string, rawScheme: string, rawName: string) => {
    const scheme: Scheme = rawScheme === 'secret' ? 'secret' : 'env';
    const resolve = resolvers[scheme];
    if (resolve === undefined) return match;
    if (escaped === '$') return match.slice(1);
    const { name, fallback } = splitReference(rawName);
    const where = formatConfigPath(path);
    if (name === '') {
      throw new GatewayError('config_invalid', `Empty reference "${match}" at ${where}`, {
        details: { path: where, reference: match },
      });
    }
    if (scheme === 'secret' && !isValidSecretName(name)) {
      throw new GatewayError(
        'config_invalid',
        `${where}: invalid secret name "${name}": use ${SECRET_NAME_RULE}`,
        { details: { path: where, secret: name } },
      );
    }
    const value = resolve(name);
    // Unset or empty takes the default, as `${NAME:-default}` does in a shell.
    if (fallback !== undefined && (value === undefined || value === '')) return fallback;
    if (value === undefined) {
      throw new GatewayError('config_invalid', undefinedReferenceMessage(scheme, name, path), {
        details: { path: where, [scheme === 'env' ? 'variable' : 'secret']: name },
      });
    }
    return value;
  });
}

/**
 * Replaces `${scheme:NAME}` references in every string of a parsed config document, returning a
 * new document (the input is not modified). Keys are never interpolated, only values.
 *
 * @throws GatewayError `config_invalid` naming the reference and the key path where it was used.
 */
export function interpolate(
  value: unknown,
  resolvers: InterpolationResolvers,
  path: ConfigPath = [],
): unknown {
  if (typeof value === 'string') return interpolateString(value, resolvers, path);
  if (Array.isArray(value)) return value.map((item, index) => interpolate(item, resolvers, [...path, index]));
  if (isPlainObject(value)) {
    // fromEntries defines own properties, so a `__proto__` key stays data and cannot touch prototypes.
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, interpolate(item, resolvers, [...path, key])]),
    );
  }
  return value;
}

/**
 * Lists the `${scheme:NAME}` references in every string of a parsed config document, in document
 * order, with the key path of each: what must be looked up before `interpolate` can run. Escaped
 * (`$${…}`) and empty references are left out; `interpolate` reports the latter.
 */
export function findReferences(value: unknown, scheme: Scheme, path: ConfigPath = []): ConfigReference[] {
  if (typeof value === 'string') {
    const found: ConfigReference[] = [];
    for (const [, escaped, rawScheme, rawName = ''] of value.matchAll(REFERENCE)) {
      const { name, fallback } = splitReference(rawName);
      if (escaped !== '$' && rawScheme === scheme && name !== '') {
        found.push(fallback === undefined ? { name, path } : { name, path, fallback });
      }
    }
    return found;
  }
  if (Array.isArray(value))
    return value.flatMap((item, index) => findReferences(item, scheme, [...path, index]));
  if (isPlainObject(value)) {
    return Object.entries(value).flatMap(([key, item]) => findReferences(item, scheme, [...path, key]));
  }
  return [];
}

/**
 * Replaces `${env:NAME}` in every string of a parsed config document with the variable's value.
 * `$${env:NAME}` is an escape for the literal text `${env:NAME}`. `${secret:NAME}` is left as is.
 *
 * @throws GatewayError `config_invalid` when a variable is not set, naming it and the key path.
 */
export function interpolateEnv(
  value: unknown,
  env: Record<string, string | undefined>,
  path: ConfigPath = [],
): unknown {
  // hasOwn: a variable named "toString" must not resolve to Object.prototype.toString.
  const lookup: ReferenceResolver = (name) => {
    const found = Object.hasOwn(env, name) ? env[name] : undefined;
    return typeof found === 'string' ? found : undefined;
  };
  return interpolate(value, { env: lookup }, path);
}
