/**
 * The package's public surface: every name `src/index.ts` exports (the package entry,
 * `dist/index.js` and its `.d.ts`), listed here. Users import these names; anything else is
 * internal and free to change. A change to this list is a change to the public API: make it on
 * purpose, in the same commit as the change to src/index.ts (and say so in the changelog).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SRC } from './import-graph.js';

/** Names whose value exists at run time (classes, functions, constants). */
const PUBLIC_VALUES = [
  'ERROR_CODE_TABLE',
  'GATEWAY_ERROR_CODES',
  'Gateway',
  'GatewayError',
  'defineTool',
  'flatToolName',
  'formatToolId',
  'httpStatusOf',
  'loadConfig',
  'parseToolId',
];

/** Names that exist only for the type checker. */
const PUBLIC_TYPES = [
  'ApertureConfig',
  'GatewayErrorCode',
  'GatewayErrorJson',
  'JsonSchema',
  'LoadedConfig',
  'Tool',
  'ToolAnnotations',
  'ToolContext',
  'ToolDefinition',
  'ToolDefinitionInput',
  'ToolExample',
  'ToolMetadata',
  'ToolResult',
];

/**
 * The names an entry module's text exports, split into values and types: `export { a, type B, c as d }
 * from …`, `export type { … }`, and declarations (`export function f`, `export interface I`). A
 * wildcard (`export * from …`) is reported, not expanded: the surface is listed name by name.
 */
function exportedNames(text: string): { values: string[]; types: string[]; wildcards: string[] } {
  const values: string[] = [];
  const types: string[] = [];
  const wildcards = [...text.matchAll(/export\s+(?:type\s+)?\*[^;]*;/g)].map((match) => match[0]);
  for (const match of text.matchAll(/export\s+(type\s+)?\{([^}]*)\}/g)) {
    const allTypes = match[1] !== undefined;
    for (const raw of match[2]!.split(',')) {
      const item = raw.trim();
      if (item === '') continue;
      const isType = allTypes || item.startsWith('type ');
      const name = item
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .pop()!
        .trim();
      (isType ? types : values).push(name);
    }
  }
  for (const match of text.matchAll(
    /export\s+(?:declare\s+)?(?:async\s+)?(function\*?|const|let|class|abstract\s+class|enum|interface|type)\s+([A-Za-z_$][\w$]*)/g,
  )) {
    const kind = match[1]!;
    (kind === 'interface' || kind === 'type' ? types : values).push(match[2]!);
  }
  return { values: values.sort(), types: types.sort(), wildcards };
}

describe('public surface (src/index.ts)', () => {
  const entry = readFileSync(path.join(SRC, 'index.ts'), 'utf8');

  it('exports exactly the listed names, each by name', () => {
    const found = exportedNames(entry);
    expect(found.wildcards).toEqual([]);
    expect(found.values).toEqual([...PUBLIC_VALUES].sort());
    expect(found.types).toEqual([...PUBLIC_TYPES].sort());
  });

  it('the module loaded exports exactly the listed values', async () => {
    const module: Record<string, unknown> = await import('../../src/index.js');
    expect(Object.keys(module).sort()).toEqual([...PUBLIC_VALUES].sort());
  });

  it('reads every form of export (it can fail)', () => {
    const text = [
      "export { A, type B, c as d } from './x.js';",
      "export type { E, F as G } from './y.js';",
      "export * from './z.js';",
      'export function h() {}',
      'export const i = 1;',
      'export interface J {}',
      'export type K = string;',
      'export class L {}',
    ].join('\n');
    expect(exportedNames(text)).toEqual({
      values: ['A', 'd', 'h', 'i', 'L'].sort(),
      types: ['B', 'G', 'E', 'J', 'K'].sort(),
      wildcards: ["export * from './z.js';"],
    });
  });
});
