import type { Tool as McpTool } from '@modelcontextprotocol/client';
import type { CatalogEntry } from '../../catalog/catalog-entry.js';
import {
  type JsonSchema,
  TOOL_ANNOTATION_KEYS,
  type Tool,
  type ToolAnnotations,
} from '../../foundation/model/tool.js';
import { isValidToolName } from '../../foundation/model/tool-id.js';
import type { ToolBackend } from '../../foundation/ports/tool-backend.js';
import { isRecord } from '../../foundation/util/is-record.js';

export interface McpToolContext {
  sourceId: string;
  namespace: string;
  /** The server's `timeoutMs`; the gateway default applies when absent. */
  timeoutMs?: number;
  backend: ToolBackend;
}

/**
 * A downstream tool as a catalog entry `namespace:name`. A name that cannot be part of a tool id
 * (whitespace or `:`) is made one with `_`; the call still goes to the original name.
 */
export function mcpToolEntry(tool: McpTool, context: McpToolContext): CatalogEntry {
  const name = isValidToolName(tool.name) ? tool.name : tool.name.replace(/[\s:]/g, '_').slice(0, 128) || '_';
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
  if (isRecord(tool._meta)) canonical.meta = tool._meta;
  return { tool: canonical, backend: context.backend };
}
