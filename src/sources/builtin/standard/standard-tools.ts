import path from 'node:path';
import { InMemorySource } from '../../../catalog/in-memory-source.js';
import type { ToolDefinition } from '../../local/define-tool.js';
import { localEntries } from '../../local/local-source.js';
import { BUILTIN_DRIVER } from '../builtin-driver.js';
import { type StdFetchOptions, stdFetchTool } from './std-fetch-tool.js';
import { stdFsTools } from './std-fs-tools.js';

/** The catalog source id of the standard tools. */
export const STANDARD_SOURCE_ID = 'standard';

/** `tools.standard`: each part is off unless configured. */
export interface StandardToolsOptions {
  /** File tools confined to `root` (relative to the config file); `write` adds `std:write_file`. */
  fs?: { root: string; write?: boolean | undefined } | undefined;
  /** `std:fetch`. */
  fetch?: StdFetchOptions | undefined;
}

/** The standard tools `options` turn on; `baseDir` resolves a relative `fs.root`. */
export function standardTools(options: StandardToolsOptions, baseDir: string): ToolDefinition[] {
  const tools: ToolDefinition[] = [];
  if (options.fs) {
    tools.push(
      ...stdFsTools({ root: path.resolve(baseDir, options.fs.root), write: options.fs.write === true }),
    );
  }
  if (options.fetch) tools.push(stdFetchTool(options.fetch));
  return tools;
}

/**
 * The standard tools (`std:*`, off by default) as one in-process source: shipped code like the
 * built-ins, so the trust gate does not check them; what they may touch is the operator's config.
 */
export function standardSource(options: StandardToolsOptions, baseDir: string): InMemorySource {
  return new InMemorySource(
    STANDARD_SOURCE_ID,
    BUILTIN_DRIVER.kind,
    localEntries(STANDARD_SOURCE_ID, BUILTIN_DRIVER.kind, standardTools(options, baseDir)),
  );
}
