import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { expandClientVariables, loadEnvFiles } from './client-compat.js';
import type { ApertureConfig } from './config-schema.js';
import { configFormatOf, parseConfigSyntax } from './config-syntax.js';
import { credentialValues } from './credential-values.js';
import { expandOverrideFiles } from './override-files.js';
import { type ParsedConfig, parseConfigValue } from './parse-config.js';
import { readConfigSecrets } from './read-config-secrets.js';

// Parsing a document is parse-config.ts; these stay importable from here, where most callers look.
export {
  type ParseConfigOptions,
  type ParsedConfig,
  parseConfigText,
  parseConfigValue,
} from './parse-config.js';

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

/** Files looked for in the working directory when no `--config` is given, first match wins. */
export const CONFIG_FILE_NAMES = ['aperture.yaml', 'aperture.yml', 'aperture.json'] as const;

/** Shorter secret values are not masked in logs (they would match half of every line). */
export const MIN_MASKED_SECRET_LENGTH = 4;

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

/** Parses a config file's text with its secrets read: what `loadConfig` does once it has the text. */
async function parseConfigFile(
  text: string,
  file: string,
  context: { env: NodeJS.ProcessEnv; source: string | undefined; baseDir: string },
): Promise<ParsedConfig & { secretValues: string[]; overrideFiles?: string[] }> {
  const document = parseConfigSyntax(text, configFormatOf(file), context.source);
  const written = await loadEnvFiles(expandClientVariables(document, context), context);
  const overrides = await expandOverrideFiles(written, {
    baseDir: context.baseDir,
    parse: (body, path) =>
      parseConfigSyntax(body, configFormatOf(path), relative(context.baseDir, path) || path),
  });
  const raw = overrides.raw;
  const secrets = await readConfigSecrets(raw, context);
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
  return {
    ...parsed,
    secretValues,
    ...(overrides.files.length > 0 ? { overrideFiles: overrides.files } : {}),
  };
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
    throw error.with({ message: named, cause: error });
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
        throw error.with({
          code: 'config_invalid',
          message: `${error.message} (from APERTURE_CONFIG)`,
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
