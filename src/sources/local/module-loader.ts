import { stat } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { glob } from 'tinyglobby';
import { GatewayError, toGatewayError } from '../../foundation/model/gateway-error.js';
import { asToolDefinition, isToolDefinitionLike, type ToolDefinition } from './define-tool.js';
import { registerPackageResolution } from './package-resolution.js';

const TS = /\.(c|m)?tsx?$/;

/** Tool definitions found in one module file. */
export interface LoadedModule {
  file: string;
  definitions: ToolDefinition[];
}

/**
 * Loads local tool modules: each pattern is a file path or a glob, relative to `baseDir`. Every
 * export that is a tool definition (made by `defineTool`, or a plain object of the documented
 * shape), or an array of them, is taken. TypeScript files are loaded through tsx. Modules may
 * import `aperture-gateway` (and `zod`) wherever they live (`registerPackageResolution`). A pattern that
 * matches nothing, a module that fails to load, or a bad definition is a `config_invalid` error
 * naming the file: the user's own code is better refused at start than half-served.
 */
export async function loadToolModules(patterns: readonly string[], baseDir: string): Promise<LoadedModule[]> {
  const loaded: LoadedModule[] = [];
  for (const pattern of patterns) {
    const files = await matchFiles(pattern, baseDir);
    if (files.length === 0) {
      throw new GatewayError(
        'config_invalid',
        `tools.modules: "${pattern}" matches no file (relative to ${baseDir})`,
        {
          details: { path: 'tools.modules', pattern },
        },
      );
    }
    for (const file of files) loaded.push({ file, definitions: await loadModule(file) });
  }
  return loaded;
}

async function matchFiles(pattern: string, baseDir: string): Promise<string[]> {
  const absolute = path.resolve(baseDir, pattern);
  const exists = await stat(absolute).then(
    (s) => s.isFile(),
    () => false,
  );
  if (exists) return [absolute];
  const matches = await glob(pattern, { cwd: baseDir, absolute: true, onlyFiles: true });
  return matches.filter((f) => /\.(c|m)?[jt]sx?$/.test(f)).sort();
}

async function loadModule(file: string): Promise<ToolDefinition[]> {
  let exports: Record<string, unknown>;
  try {
    registerPackageResolution();
    if (TS.test(file)) {
      const { tsImport } = await import('tsx/esm/api');
      exports = (await tsImport(pathToFileURL(file).href, import.meta.url)) as Record<string, unknown>;
    } else {
      exports = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    }
  } catch (error) {
    throw new GatewayError(
      'config_invalid',
      `Tool module ${file} failed to load: ${(error as Error).message}`,
      {
        details: { path: 'tools.modules', file },
        cause: error,
      },
    );
  }
  const definitions: ToolDefinition[] = [];
  for (const [exportName, value] of Object.entries(exports)) {
    const candidates = Array.isArray(value) ? value : [value];
    for (const candidate of candidates) {
      if (!isToolDefinitionLike(candidate)) continue;
      try {
        definitions.push(asToolDefinition(candidate));
      } catch (error) {
        const failure = toGatewayError(error);
        throw new GatewayError(
          'config_invalid',
          `Tool module ${file}, export "${exportName}": ${failure.message}`,
          {
            details: { path: 'tools.modules', file, export: exportName },
          },
        );
      }
    }
  }
  return definitions;
}
