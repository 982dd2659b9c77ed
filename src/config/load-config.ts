import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, extname, isAbsolute, join, relative, resolve } from 'node:path';
import type { z } from 'zod';
import { GatewayError } from '../foundation/gateway-error.js';
import { createSecretProvider } from '../operations/secrets/create-secret-provider.js';
import { createSecretMasker } from '../operations/secrets/secret-masker.js';
import { isValidSecretName } from '../operations/secrets/secret-provider.js';
import { clientCompatNotices, clientCompatWarnings, loadEnvFiles } from './client-compat.js';
import { stripJsonComments } from './client-config-files.js';
import { knownKeysAt } from './config-json-schema.js';
import { type ApertureConfig, configSchema, deepFreeze } from './config-schema.js';
import { credentialValues } from './credential-values.js';
import { didYouMean } from './did-you-mean.js';
import {
  type ConfigReference,
  findReferences,
  formatConfigPath,
  interpolate,
  undefinedReferenceMessage,
} from './interpolate.js';
import { expandOverrideFiles } from './override-files.js';
import { describeValue } from './schema-primitives.js';

const require = createRequire(import.meta.url);

/** The syntaxes a config file may be written in. */
export type ConfigFormat = 'yaml' | 'json';

/** Options of `parseConfigText` / `parseConfigValue`. */
export interface ParseConfigOptions {
  /** Variables for `${env:NAME}`; default `process.env`. */
  env?: Record<string, string | undefined>;
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

/** Options of `loadConfig`. */
export interface LoadConfigOptions {
  /**
   * Config file; relative to `cwd`. Must exist when given. Default: the file `APERTURE_CONFIG` (in
   * `env`) names, else discovered in `cwd`.
   */
  file?: string | undefined;
  /** Where relative paths start and discovery looks; default `process.cwd()`. */
  cwd?: string | undefined;
  /** Variables for `${env:NAME}`; default `process.env`. */
  env?: NodeJS.ProcessEnv | undefined;
}

/** The result of `loadConfig`. */
export interface LoadedConfig {
  /** Validated, defaults applied, deep-frozen. */
  config: ApertureConfig;
  /** Absolute path of the file read; undefined when running on defaults. */
  file?: string;
  /** Directory relative paths in the config (tool modules, OpenAPI files) are resolved against. */
  baseDir: string;
  warnings: string[];
  /** Info lines, as in {@link ParsedConfig.notices}. */
  notices?: string[];
  /**
   * The values to mask wherever they could show (`createLogger`'s `mask`, error messages,
   * `/readyz`, doctor output): what `${secret:…}` references resolved to, API keys, and the
   * credentials sent to sources (`credentialValues`: `${env:…}` values in URLs, headers, env and
   * arguments; literal credential headers). Values shorter than {@link MIN_MASKED_SECRET_LENGTH} are left out: masking "ab"
   * would garble every line. Always set by `loadConfig`; optional for configs built in code.
   */
  secretValues?: string[];
  /** The files `overrides` named (folders expanded), absolute, in the order their rules apply. */
  overrideFiles?: string[];
}

/** One schema violation, as listed in `details.issues` of a `config_invalid` error. */
export interface ConfigIssue {
  path: string;
  message: string;
}

/** Files looked for in the working directory when no `--config` is given, first match wins. */
export const CONFIG_FILE_NAMES = ['aperture.yaml', 'aperture.yml', 'aperture.json'] as const;

/** Shorter secret values are not masked in logs (they would match half of every line). */
export const MIN_MASKED_SECRET_LENGTH = 4;

function label(source: string | undefined): string {
  return source === undefined ? 'Invalid config' : `Invalid config (${source})`;
}

const EXPECTED: Record<string, string> = {
  int: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  object: 'an object',
  record: 'an object',
  array: 'a list',
};

/** Turns one zod issue into user-facing lines; an unknown-keys issue yields one line per key. */
function describeIssue(issue: z.core.$ZodIssue): ConfigIssue[] {
  const path = formatConfigPath(issue.path);
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => ({
        path: formatConfigPath([...issue.path, key]),
        message: `unknown key${didYouMean(key, knownKeysAt(issue.path))}`,
      }));
    case 'invalid_type': {
      if (issue.input === undefined) return [{ path, message: 'is required' }];
      const expected = EXPECTED[issue.expected] ?? issue.expected;
      return [{ path, message: `expected ${expected}, got ${describeValue(issue.input)}` }];
    }
    case 'invalid_value': {
      const allowed = issue.values.map((value) => JSON.stringify(value)).join(', ');
      const got = issue.input === undefined ? '' : ` (got ${describeValue(issue.input)})`;
      return [{ path, message: `must be one of ${allowed}${got}` }];
    }
    case 'too_small':
      return [{ path, message: describeBound(issue.origin, issue.minimum, issue.inclusive, 'min') }];
    case 'too_big':
      return [{ path, message: describeBound(issue.origin, issue.maximum, issue.inclusive, 'max') }];
    case 'invalid_key': {
      const reasons = issue.issues.map((inner) => inner.message).join(', ');
      const key = issue.path.at(-1);
      return [{ path, message: `invalid key ${JSON.stringify(String(key))}: ${reasons}` }];
    }
    case 'invalid_union': {
      // "Invalid input" says nothing. When every alternative but one fails on the value's kind
      // alone (a mapping where a list goes), the user meant that one: report its issues.
      const meant = issue.errors.filter((branch) => !branch.every(isKindMismatch));
      if (meant.length === 1 && meant[0]) {
        return meant[0].flatMap((inner) => describeIssue({ ...inner, path: [...issue.path, ...inner.path] }));
      }
      return [{ path, message: issue.message }];
    }
    default:
      // `custom` issues carry messages written for users in config-schema.ts.
      return [{ path, message: issue.message }];
  }
}

/** An issue that only says the value is of another kind than expected, at the alternative's root. */
function isKindMismatch(issue: z.core.$ZodIssue): boolean {
  return issue.code === 'invalid_type' && issue.path.length === 0;
}

function describeBound(
  origin: string,
  bound: number | bigint,
  inclusive: boolean | undefined,
  side: 'min' | 'max',
): string {
  const limit = Number(bound);
  if (origin === 'string' && side === 'min' && limit === 1) return 'must not be empty';
  if (origin === 'string') return `must be ${side === 'min' ? 'at least' : 'at most'} ${limit} characters`;
  if (origin === 'array') return `must have ${side === 'min' ? 'at least' : 'at most'} ${limit} items`;
  if (side === 'min')
    return inclusive === false ? `must be greater than ${limit}` : `must be at least ${limit}`;
  return inclusive === false ? `must be less than ${limit}` : `must be at most ${limit}`;
}

/** Where a JSON.parse error happened, from V8's "at position N" (and "line L column C" in newer Nodes). */
function jsonErrorPosition(message: string, text: string): { line: number; column: number } | undefined {
  const lineColumn = /line (\d+) column (\d+)/.exec(message);
  if (lineColumn) return { line: Number(lineColumn[1]), column: Number(lineColumn[2]) };
  const position = /at position (\d+)/.exec(message);
  if (!position) return undefined;
  const before = text.slice(0, Number(position[1])).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

function parseJsonc(text: string, source: string | undefined): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw jsonSyntaxError(error, text, source);
  }
}

function jsonSyntaxError(error: unknown, text: string, source: string | undefined): GatewayError {
  const reason = error instanceof Error ? error.message : String(error);
  const at = jsonErrorPosition(reason, text);
  const where = at ? ` at line ${at.line}, column ${at.column}` : '';
  return new GatewayError('config_invalid', `${label(source)}: JSON syntax error${where}: ${reason}`, {
    details: { path: '(top level)', source, ...at },
    cause: error,
  });
}

function parseSyntax(text: string, format: ConfigFormat, source: string | undefined): unknown {
  // An empty (or comment-only) file means "all defaults"; a BOM is an editor artefact, not content.
  const body = text.replace(/^\uFEFF/, '');
  if (body.trim() === '') return {};
  if (format === 'json') {
    try {
      return JSON.parse(body);
    } catch (error) {
      // VS Code's mcp.json (and Cursor's) may have comments and trailing commas: JSONC is accepted.
      // Stripping keeps every position, so an error in it still names the line and column as written.
      const withoutComments = stripJsonComments(body);
      if (withoutComments !== body) return parseJsonc(withoutComments, source);
      throw jsonSyntaxError(error, body, source);
    }
  }
  // Required on first use (yaml ships CommonJS): start-up without a YAML file skips loading it.
  const YAML = require('yaml') as typeof import('yaml');
  const doc = YAML.parseDocument(body, { prettyErrors: true });
  const [first] = doc.errors;
  if (first !== undefined) {
    // prettyErrors appends a code frame after the first line; the message stays one line, the frame goes to details.
    const [headline = first.message] = first.message.split('\n');
    const position = first.linePos?.[0];
    throw new GatewayError(
      'config_invalid',
      `${label(source)}: YAML syntax error: ${headline.replace(/:$/, '')}`,
      {
        details: {
          path: '(top level)',
          source,
          line: position?.line,
          column: position?.col,
          excerpt: first.message,
        },
        cause: first,
      },
    );
  }
  return doc.toJS() ?? {};
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
      throw new GatewayError('config_invalid', `${label(source)}: ${error.message}`, {
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
  return parseConfigValue(parseSyntax(text, format, options.source), options);
}

/**
 * Masks every resolved `${env:…}` / `${secret:…}` value in a message with `[REDACTED]`, also where
 * an error quotes it cut short (`describeValue` shows 40 characters and `…`): a quoted string
 * that ends with the start of a value loses its whole text.
 */
function resolvedValueMasker(values: readonly string[]): (text: string) => string {
  const whole = createSecretMasker([...values]);
  const shown = values.filter((value) => value !== '');
  if (shown.length === 0) return whole;
  const endsWithStartOf = (text: string, value: string): boolean => {
    for (let k = Math.min(text.length, value.length); k > 0; k--)
      if (text.endsWith(value.slice(0, k))) return true;
    return false;
  };
  return (text) =>
    whole(text).replace(/"((?:[^"\\]|\\.)*)…"/g, (quoted, inner: string) =>
      shown.some((value) => endsWithStartOf(inner, value)) ? '"[REDACTED]…"' : quoted,
    );
}

/** The format a file's extension says; YAML for anything else, since YAML also reads JSON. */
function formatOf(file: string): ConfigFormat {
  return extname(file).toLowerCase() === '.json' ? 'json' : 'yaml';
}

function isMissing(error: unknown): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === 'ENOENT';
}

async function readConfigFile(file: string, cwd: string): Promise<{ text: string; source: string }> {
  const shown = relative(cwd, file);
  const source = shown === '' || shown.startsWith('..') || isAbsolute(shown) ? file : shown;
  try {
    return { text: await readFile(file, 'utf8'), source };
  } catch (error) {
    const reason = isMissing(error)
      ? `Config file not found: ${file}`
      : `Cannot read config file ${file}: ${error instanceof Error ? error.message : String(error)}`;
    throw new GatewayError('config_invalid', reason, { details: { path: '(file)', file }, cause: error });
  }
}

/** The first of `CONFIG_FILE_NAMES` present in `cwd`, read; undefined when there is none. */
async function discoverConfigFile(cwd: string): Promise<{ file: string; text: string } | undefined> {
  for (const name of CONFIG_FILE_NAMES) {
    const file = join(cwd, name);
    try {
      return { file, text: await readFile(file, 'utf8') };
    } catch (error) {
      if (!isMissing(error)) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new GatewayError('config_invalid', `Cannot read config file ${file}: ${reason}`, {
          details: { path: '(file)', file },
          cause: error,
        });
      }
    }
  }
  return undefined;
}

/**
 * Reads the `${secret:NAME}` references of a document from its `secrets.providers` (default: the
 * environment), in list order, first that has it wins.
 *
 * @throws GatewayError `config_invalid` naming every secret no provider has, each with the key
 *   path of its first use, and the providers asked (`details.providers`).
 */
async function readSecrets(
  raw: unknown,
  context: { env: NodeJS.ProcessEnv; source: string | undefined; baseDir: string },
): Promise<Map<string, string>> {
  const values = new Map<string, string>();
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return values;
  // References in `secrets` itself and invalid names are refused by parseConfigValue, with the path.
  const references = findReferences(raw, 'secret').filter(
    (reference) => reference.path[0] !== 'secrets' && isValidSecretName(reference.name),
  );
  if (references.length === 0) return values;
  // The section is validated by the full schema, alone: same rules, same messages, no duplicate.
  const section = (raw as Record<string, unknown>).secrets;
  const { config } = parseConfigValue({ secrets: section }, { env: context.env, source: context.source });
  const provider = createSecretProvider(config.secrets.providers, {
    env: context.env,
    baseDir: context.baseDir,
  });
  // One lookup per name; messages point at its first use.
  const firstUse = new Map<string, ConfigReference>();
  for (const reference of references) {
    if (!firstUse.has(reference.name)) firstUse.set(reference.name, reference);
  }
  await Promise.all(
    [...firstUse.values()].map(async ({ name, path }) => {
      let value: string | undefined;
      try {
        value = await provider.get(name);
      } catch (error) {
        const where = formatConfigPath(path);
        const reason = error instanceof Error ? error.message : String(error);
        throw new GatewayError(
          'config_invalid',
          `${label(context.source)}: ${where}: secret "${name}" could not be read (${provider.name}): ${reason}`,
          { details: { path: where, secret: name, source: context.source }, cause: error },
        );
      }
      if (value !== undefined) values.set(name, value);
    }),
  );
  // A name is missing only where it is used without a `:-default`; such a use is what the message points at.
  const required = new Map<string, ConfigReference>();
  for (const reference of references) {
    if (reference.fallback === undefined && !required.has(reference.name)) {
      required.set(reference.name, reference);
    }
  }
  const missing = [...required.values()].filter(({ name }) => !values.has(name));
  const [first] = missing;
  if (first !== undefined) {
    const lines = missing.map(({ name, path }) => undefinedReferenceMessage('secret', name, path));
    throw new GatewayError('config_invalid', `${label(context.source)}: ${lines.join('; ')}`, {
      details: {
        path: formatConfigPath(first.path),
        secret: first.name,
        source: context.source,
        providers: provider.providers.map((one) => one.name),
        issues: missing.map(({ name, path }) => ({
          path: formatConfigPath(path),
          message: `secret "${name}" is not defined`,
        })),
      },
    });
  }
  return values;
}

/** Parses a config file's text with its secrets read: what `loadConfig` does once it has the text. */
async function parseConfigFile(
  text: string,
  file: string,
  context: { env: NodeJS.ProcessEnv; source: string | undefined; baseDir: string },
): Promise<ParsedConfig & { secretValues: string[]; overrideFiles?: string[] }> {
  const written = await loadEnvFiles(parseSyntax(text, formatOf(file), context.source), context);
  const overrides = await expandOverrideFiles(written, {
    baseDir: context.baseDir,
    parse: (body, path) => parseSyntax(body, formatOf(path), relative(context.baseDir, path) || path),
  });
  const raw = overrides.raw;
  const secrets = await readSecrets(raw, context);
  const parsed = withOverrideFileNames(
    () => parseConfigValue(raw, { env: context.env, source: context.source, secrets }),
    overrides.layerFiles,
    context.baseDir,
  );
  // API keys are credentials wherever they came from (a literal, `${env:…}`, a secret).
  const apiKeys = (parsed.config.auth.apiKeys ?? []).map((entry) => entry.key);
  // So are `${env:…}` values sent to a source and literal credential headers (credential-values.ts).
  const sent = credentialValues(raw, parsed.config, context.env);
  const secretValues = [...new Set([...secrets.values(), ...apiKeys, ...sent])].filter(
    (v) => v.length >= MIN_MASKED_SECRET_LENGTH,
  );
  return { ...parsed, secretValues, ...(overrides.files.length > 0 && { overrideFiles: overrides.files }) };
}

/**
 * Runs `parse`, and when it refuses a rule that came from an overrides file, says which file: the
 * schema only sees `overrides[i]`, the user wrote the rule in a file of its own.
 */
function withOverrideFileNames<T>(
  parse: () => T,
  layerFiles: ReadonlyMap<number, string>,
  baseDir: string,
): T {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof GatewayError) || layerFiles.size === 0) throw error;
    const named = error.message.replace(/overrides\[(\d+)\]/g, (match, index: string) => {
      const file = layerFiles.get(Number(index));
      return file === undefined ? match : `${match} (file ${relative(baseDir, file) || file})`;
    });
    throw new GatewayError(error.code, named, {
      ...(error.details ? { details: error.details } : {}),
      cause: error,
    });
  }
}

/**
 * Loads the gateway's configuration: the given file, else the file `APERTURE_CONFIG` names, else the first of `./aperture.yaml`,
 * `./aperture.yml`, `./aperture.json` in `cwd`, else the defaults. `${env:…}` and `${secret:…}`
 * references are resolved here; `secrets.providers[].path` is relative to the config file.
 *
 * @throws GatewayError `config_invalid` when the given file is missing or any part is invalid,
 *   or a referenced variable or secret is not defined.
 */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<LoadedConfig> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const env = options.env ?? process.env;
  // A client that starts the gateway in a directory of its own choosing (Claude Desktop: `/`)
  // names the config in the environment; an explicit file wins, an empty variable is unset.
  const fromEnv = options.file === undefined && env.APERTURE_CONFIG ? env.APERTURE_CONFIG : undefined;
  const given = options.file ?? fromEnv;
  if (given !== undefined) {
    const file = resolve(cwd, given);
    const { text, source } = await readConfigFile(file, cwd).catch((error: unknown) => {
      if (fromEnv !== undefined && error instanceof GatewayError) {
        throw new GatewayError('config_invalid', `${error.message} (from APERTURE_CONFIG)`, {
          ...(error.details ? { details: error.details } : {}),
          cause: error,
        });
      }
      throw error;
    });
    const baseDir = dirname(file);
    return { ...(await parseConfigFile(text, file, { env, source, baseDir })), file, baseDir };
  }
  const found = await discoverConfigFile(cwd);
  if (found === undefined) {
    return { ...parseConfigValue({}, { env }), baseDir: cwd, secretValues: [] };
  }
  const source = relative(cwd, found.file);
  return {
    ...(await parseConfigFile(found.text, found.file, { env, source, baseDir: cwd })),
    file: found.file,
    baseDir: cwd,
  };
}
