import { createHash } from 'node:crypto';
import type { Tool as McpTool } from '@modelcontextprotocol/client';
import type { CatalogEntry } from '../../catalog/catalog-entry.js';
import {
  type JsonSchema,
  TOOL_ANNOTATION_KEYS,
  type Tool,
  type ToolAnnotations,
} from '../../foundation/model/tool.js';
import { isValidToolName } from '../../foundation/model/tool-id.js';
import { toolUiOf } from '../../foundation/model/tool-ui.js';
import type { ToolBackend } from '../../foundation/ports/tool-backend.js';
import { isRecord } from '../../foundation/util/is-record.js';

export interface McpToolContext {
  sourceId: string;
  namespace: string;
  /** The server's `timeoutMs`; the gateway default applies when absent. */
  timeoutMs?: number;
  backend: ToolBackend;
  /** The name the tool gets in the catalog when the listing decided it (`toolNamesOf`). */
  name?: string;
}

/**
 * The catalog name of a downstream tool name: as it is when usable, else whitespace and `:` made
 * `_`. Control, invisible and bidirectional characters are left for the catalog to refuse the tool
 * over, naming it: no rewriting could make such a name trustworthy.
 */
function sanitisedName(name: string): string {
  return isValidToolName(name) ? name : name.replace(/[\s:]/g, '_').slice(0, 128) || '_';
}

/**
 * The catalog names of one listing, by downstream name. A name made usable (`a:b` → `a_b`) that
 * lands on a name the server lists too, or on another rewritten one, gets `_` and a short hash of
 * its original appended: both tools stay reachable, each under a name that never changes with
 * listing order. Names already usable are never changed.
 */
export function toolNamesOf(names: readonly string[]): Map<string, string> {
  const result = new Map<string, string>();
  const taken = new Set(names.filter(isValidToolName));
  for (const name of names) {
    if (result.has(name)) continue;
    let chosen = sanitisedName(name);
    if (chosen !== name && taken.has(chosen)) {
      const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
      chosen = `${chosen.slice(0, 119)}_${hash}`;
    }
    taken.add(chosen);
    result.set(name, chosen);
  }
  return result;
}

/**
 * A downstream tool as a catalog entry `namespace:name`. A name that cannot be part of a tool id
 * (whitespace or `:`) is made one with `_` (`context.name`, decided for the whole listing, keeps
 * it apart from the server's other names); the call still goes to the original name.
 */
export function mcpToolEntry(tool: McpTool, context: McpToolContext): CatalogEntry {
  const name = context.name ?? sanitisedName(tool.name);
  const annotations: ToolAnnotations = {};
  for (const key of TOOL_ANNOTATION_KEYS) {
    const value = tool.annotations?.[key];
    if (value !== undefined) (annotations as Record<string, unknown>)[key] = value;
  }
  const canonical: Tool = {
    id: `${context.namespace}:${name}`,
    namespace: context.namespace,
    name,
    description: tool.description ?? '',
    inputSchema: tool.inputSchema as JsonSchema,
    annotations,
    tags: [],
    metadata: context.timeoutMs === undefined ? {} : { extra: { timeoutMs: context.timeoutMs } },
    examples: [],
    origin: { sourceId: context.sourceId, kind: 'mcp', originalName: tool.name },
  };
  const title = tool.title ?? tool.annotations?.title;
  if (title !== undefined) canonical.title = title;
  if (tool.outputSchema !== undefined) canonical.outputSchema = tool.outputSchema as JsonSchema;
  if (isRecord(tool._meta)) {
    canonical.meta = tool._meta;
    // The app is read once here, so listing and search test a field rather than parse `_meta`.
    const ui = toolUiOf(tool._meta);
    if (ui !== undefined) canonical.ui = ui;
  }
  return { tool: canonical, backend: context.backend };
}
