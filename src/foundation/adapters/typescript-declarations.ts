import type { Tool } from '../model/tool.js';
import { docComment, propertyKey, schemaToTypeScript } from './json-schema-to-typescript.js';

/**
 * The TypeScript declaration of the `tools` object code mode programs see: generic `call`,
 * `search` and `describe`, and one typed proxy per tool, `tools.<namespace>.<name>(args)`, whose
 * argument and result types come from the tool's JSON Schemas. A model reads it to write correct
 * calls; names that are not identifiers are quoted (reach them with brackets).
 */
export function toTypeScriptDeclarations(tools: readonly Tool[]): string {
  const byNamespace = new Map<string, Tool[]>();
  for (const tool of tools) {
    const list = byNamespace.get(tool.namespace) ?? [];
    list.push(tool);
    byNamespace.set(tool.namespace, list);
  }
  const lines = [
    'declare const tools: {',
    '  /** Runs any tool by id ("namespace:name"); resolves to its structured result, else its text. Rejects with an Error whose `code` is the gateway error code. */',
    '  call(id: string, args?: Record<string, unknown>): Promise<unknown>;',
    '  /** Searches the catalog like the search_tools metatool. */',
    '  search(query: string, options?: { limit?: number; namespace?: string; tags?: string[] }): Promise<{ tools: { id: string; name: string; namespace: string; description: string; tags: string[]; score?: number }[] }>;',
    '  /** Describes one tool like describe_tool (detail "schema"). */',
    '  describe(id: string): Promise<{ summary: string; tool: Record<string, unknown> }>;',
  ];
  for (const [namespace, list] of [...byNamespace].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(`  ${propertyKey(namespace)}: {`);
    for (const tool of list) lines.push(...toolSignature(tool, '    '));
    lines.push('  };');
  }
  lines.push('};');
  return `${lines.join('\n')}\n`;
}

/** One tool's typed proxy signature (JSDoc, then the method), as lines. */
export function toolSignature(tool: Tool, indent = ''): string[] {
  const lines: string[] = [];
  const doc = docComment({ description: `${tool.id} — ${tool.description}` }, indent);
  if (doc) lines.push(doc);
  const args = schemaToTypeScript(tool.inputSchema, { indent });
  const result = tool.outputSchema ? schemaToTypeScript(tool.outputSchema, { indent }) : 'unknown';
  const required = Array.isArray(tool.inputSchema.required) && tool.inputSchema.required.length > 0;
  lines.push(`${indent}${propertyKey(tool.name)}(args${required ? '' : '?'}: ${args}): Promise<${result}>;`);
  return lines;
}
