import type { CatalogEntry } from '../../src/catalog/catalog-entry.js';
import type { Tool } from '../../src/foundation/model/tool.js';
import type { ToolBackend } from '../../src/foundation/ports/tool-backend.js';

/** A canonical tool with defaults, for tests across layers. */
export function makeTool(id: string, overrides: Partial<Tool> = {}): Tool {
  const [namespace = 'ns', name = id] = id.split(':');
  return {
    id,
    namespace,
    name,
    description: `The ${name} tool`,
    inputSchema: { type: 'object' },
    annotations: {},
    tags: [],
    metadata: {},
    examples: [],
    origin: { sourceId: 'test', kind: 'local', originalName: name },
    ...overrides,
  };
}

/**
 * A tool for search tests: an empty description unless given, so only the fields a test names
 * can match a query.
 */
export function makeSearchTool(overrides: Partial<Tool> & { id: string }): Tool {
  return makeTool(overrides.id, { description: '', ...overrides });
}

/** A catalog entry whose backend returns `value` (or runs `execute`). */
export function makeEntry(
  tool: Tool,
  execute: ToolBackend['execute'] = async () => ({ ok: true }),
): CatalogEntry {
  return { tool, backend: { execute } };
}
