import { GatewayError } from '../foundation/model/gateway-error.js';
import { createSecretMasker } from '../operations/secrets/secret-masker.js';
import { clientCompatNotices, clientCompatWarnings } from './client-compat.js';
import { describeIssue, invalidConfigLabel as label } from './config-issues.js';
import { type ApertureConfig, configSchema, deepFreeze } from './config-schema.js';
import { type ConfigFormat, parseConfigSyntax } from './config-syntax.js';
import { findReferences, formatConfigPath, interpolate } from './interpolate.js';
import { describeValue } from './schema-primitives.js';

/** Options of `parseConfigText` / `parseConfigValue`. */
export interface ParseConfigOptions {
  /** Variables for `${env:NAME}`; default `process.env`. */
  env?: Record<string, string | undefined> | undefined;
  /** Names the document in messages, e.g. `aperture.yaml`. */
  source?: string | undefined;
  /**
   * Values for `${secret:NAME}`, already read from the providers (`loadConfig` does that, since
   * providers are asynchronous). Without it a `${secret:…}` reference is refused; with it, a name
   * missing from the map is "not defined".
   */
  secrets?: ReadonlyMap<string, string> | undefined;
}

/** A validated config plus the non-fatal findings worth telling the user about. */
export interface ParsedConfig {
  config: ApertureConfig;
  warnings: string[];
  /**
   * Info lines (log level info): what a pasted client block had that was normalised or ignored,
   * e.g. a server key turned into a namespace, `autoApprove`. Present only when there are some.
   */
  notices?: string[];
}

/**
 * Interpolates, validates and freezes an already parsed config document (for configs built in
 * code, and for `parseConfigText`). Synchronous: `${secret:…}` values come pre-read in
 * `options.secrets` (see `loadConfig`); without them a `${secret:…}` reference is refused.
 *
 * @throws GatewayError `config_invalid` listing every bad key path in one message.
 */
export function parseConfigValue(raw: unknown, options: ParseConfigOptions = {}): ParsedConfig {
  const { source } = options;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new GatewayError(
      'config_invalid',
      `${label(source)}: the top level must be a mapping of sections, got ${describeValue(raw)}`,
      { details: { path: '(top level)', source } },
    );
  }
  assertSecretReferencesUsable(raw, options.secrets, source);
  const env = options.env ?? process.env;
  const secrets = options.secrets;
  let interpolated: unknown;
  // Every value a reference resolved to: no error or warning may echo one (an admin validating a
  // pasted config must not read other identities' keys back from `${env:…}`; docs/SECURITY.md).
  const resolved: string[] = [];
  const noted = (value: string | undefined): string | undefined => {
    if (value !== undefined) resolved.push(value);
    return value;
  };
  try {
    interpolated = interpolate(raw, {
      // hasOwn: a variable named "toString" must not resolve to Object.prototype.toString.
      env: (name) => noted(Object.hasOwn(env, name) ? env[name] : undefined),
      secret: (name) => noted(secrets?.get(name)),
    });
  } catch (error) {
    // Re-issue in the shape of every other config error; the interpolation itself does not know the file.
    if (error instanceof GatewayError) {
      throw error.with({
        code: 'config_invalid',
        message: `${label(source)}: ${error.message}`,
        details: { ...error.details, source },
        cause: error,
      });
    }
    throw error;
  }
  // jitless: a config is parsed once per load, so compiling zod's fast parsers costs more than it saves.
  const result = configSchema.safeParse(interpolated, { reportInput: true, jitless: true });
  const mask = resolvedValueMasker(resolved);
  if (!result.success) {
    const issues = result.error.issues
      .flatMap(describeIssue)
      .map((issue) => ({ ...issue, message: mask(issue.message) }));
    const summary = issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
    throw new GatewayError('config_invalid', `${label(source)}: ${summary}`, {
      details: { path: issues[0]?.path, source, issues },
    });
  }
  const notices = clientCompatNotices(interpolated).map(mask);
  return {
    config: deepFreeze(result.data),
    // Checked on the document as written: after interpolation `$${env:X}` would read as `${env:X}`.
    warnings: [...clientCompatWarnings(raw), ...exposureWarnings(result.data)].map(mask),
    ...(notices.length > 0 ? { notices } : {}),
  };
}

/** `exposure.pinned` in flat mode does nothing: every tool is listed there anyway. */
function exposureWarnings(config: ApertureConfig): string[] {
  const { mode, pinned } = config.exposure;
  if (mode !== 'flat' || pinned.length === 0) return [];
  return ['exposure.pinned: has no effect with mode "flat", which lists every tool directly'];
}

/**
 * Refuses `${secret:…}` where it cannot be resolved: inside the `secrets` section itself (the
 * providers are needed to read any secret), and anywhere when no secret values were passed in.
 */
function assertSecretReferencesUsable(
  raw: object,
  secrets: ReadonlyMap<string, string> | undefined,
  source: string | undefined,
): void {
  const references = findReferences(raw, 'secret');
  const inSection = references.find((reference) => reference.path[0] === 'secrets');
  if (inSection !== undefined) {
    const where = formatConfigPath(inSection.path);
    throw new GatewayError(
      'config_invalid',
      `${label(source)}: ${where}: \${secret:…} cannot be used in the secrets section (it configures where secrets come from); use \${env:…}`,
      { details: { path: where, secret: inSection.name, source } },
    );
  }
  const [first] = references;
  if (secrets === undefined && first !== undefined) {
    const where = formatConfigPath(first.path);
    throw new GatewayError(
      'config_invalid',
      `${label(source)}: ${where}: secret "${first.name}" cannot be resolved here; secrets are read by loadConfig (or pass \`secrets\` to parseConfigValue)`,
      { details: { path: where, secret: first.name, source } },
    );
  }
}

/**
 * Parses the text of a config file: syntax, then `${env:…}` (and, given `options.secrets`,
 * `${secret:…}`) interpolation, then the schema.
 *
 * @throws GatewayError `config_invalid`: syntax errors name line and column; schema errors name
 *   every bad key path in one message, with `details.issues` listing them.
 */
export function parseConfigText(
  text: string,
  format: ConfigFormat,
  options: ParseConfigOptions = {},
): ParsedConfig {
  return parseConfigValue(parseConfigSyntax(text, format, options.source), options);
}

/** The format a file's extension says; YAML for anything else, since YAML also reads JSON. */

/**
 * Masks every resolved `${env:…}` / `${secret:…}` value in a message with `[REDACTED]`, also where
 * an error quotes it cut short (`describeValue` shows 40 characters and `…`): a quoted string
 * that ends with the start of a value (at least 4 characters of it, or all of a shorter one) loses
 * its whole text.
 */
function resolvedValueMasker(values: readonly string[]): (text: string) => string {
  const whole = createSecretMasker([...values]);
  const shown = values.filter((value) => value !== '');
  if (shown.length === 0) return whole;
  const endsWithStartOf = (text: string, value: string): boolean => {
    for (let k = Math.min(text.length, value.length); k >= Math.min(4, value.length); k--)
      if (text.endsWith(value.slice(0, k))) return true;
    return false;
  };
  return (text) =>
    whole(text).replace(/"((?:[^"\\]|\\.)*)…"/g, (quoted, inner: string) =>
      shown.some((value) => endsWithStartOf(inner, value)) ? '"[REDACTED]…"' : quoted,
    );
}
