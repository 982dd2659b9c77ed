import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join, relative, resolve } from 'node:path';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { isRecord } from '../foundation/util/is-record.js';
import { describeValue } from './schema-primitives.js';

/** Extensions read from an overrides folder, and accepted for a named file. */
const OVERRIDE_FILE_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

/** Options of {@link expandOverrideFiles}. */
export interface OverrideFilesOptions {
  /** Where relative paths start: the config file's directory. */
  baseDir: string;
  /** Parses one file's text (YAML or JSON by its extension), as the config file itself is parsed. */
  parse: (text: string, file: string) => unknown;
}

/** The config document with its override files read, and which files they were. */
export interface ExpandedOverrides {
  raw: unknown;
  /** Absolute paths of the files read, in the order their rules apply (for watching and messages). */
  files: string[];
  /** `overrides[i]` of the expanded document → the file it came from. */
  layerFiles: Map<number, string>;
}

/**
 * Reads the files and folders `overrides` names (a path, or a list of paths and inline mappings)
 * and puts each file's mapping in its place, so the config schema validates one list of rule
 * mappings. A folder contributes its `.yaml`, `.yml` and `.json` files in name order; later
 * entries merge over earlier ones. A document without paths is returned as it is.
 *
 * @throws GatewayError `config_invalid` naming the file when one is missing, unreadable, not a
 *   mapping, or a folder holds no override files.
 */
export async function expandOverrideFiles(
  raw: unknown,
  options: OverrideFilesOptions,
): Promise<ExpandedOverrides> {
  const files: string[] = [];
  const layerFiles = new Map<number, string>();
  if (!isRecord(raw)) return { raw, files, layerFiles };
  const section = raw.overrides;
  const entries = typeof section === 'string' ? [section] : Array.isArray(section) ? section : undefined;
  if (entries === undefined || !entries.some((entry) => typeof entry === 'string')) {
    return { raw, files, layerFiles };
  }
  const layers: unknown[] = [];
  for (const [index, entry] of entries.entries()) {
    if (typeof entry !== 'string') {
      layers.push(entry);
      continue;
    }
    for (const file of await overrideFilesAt(entry, index, options.baseDir)) {
      layerFiles.set(layers.length, file);
      layers.push(await readRules(file, options));
      files.push(file);
    }
  }
  return { raw: { ...raw, overrides: layers }, files, layerFiles };
}

async function overrideFilesAt(path: string, index: number, baseDir: string): Promise<string[]> {
  const target = resolve(baseDir, path);
  const fail = (reason: string, cause?: unknown) =>
    new GatewayError('config_invalid', `overrides[${index}]: ${reason}`, {
      details: { path: `overrides[${index}]`, file: target },
      ...(cause === undefined ? {} : { cause }),
    });
  const info = await stat(target).catch((error: unknown) => {
    throw fail(`no such file or folder: ${path} (${target})`, error);
  });
  if (!info.isDirectory()) return [target];
  const names = (await readdir(target)).filter((name) =>
    OVERRIDE_FILE_EXTENSIONS.has(extname(name).toLowerCase()),
  );
  // Name order, so `10-team.yaml` after `00-base.yaml` is how a folder says which wins.
  names.sort();
  if (names.length === 0) throw fail(`the folder ${path} holds no .yaml, .yml or .json files`);
  return names.map((name) => join(target, name));
}

async function readRules(file: string, options: OverrideFilesOptions): Promise<unknown> {
  const shown = relative(options.baseDir, file) || file;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new GatewayError(
      'config_invalid',
      `overrides file ${shown}: cannot read it (${(error as Error).message})`,
      {
        details: { path: 'overrides', file },
        cause: error,
      },
    );
  }
  const rules = options.parse(text, file);
  if (!isRecord(rules)) {
    throw new GatewayError(
      'config_invalid',
      `overrides file ${shown}: must be a mapping of "*", "namespace" or "namespace:tool" to an override, got ${describeValue(rules)}`,
      { details: { path: 'overrides', file } },
    );
  }
  return rules;
}
