import type { CatalogEntry } from '../../catalog/catalog-entry.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { normalizeTags } from '../../foundation/model/tags.js';
import type { Tool, ToolOriginKind } from '../../foundation/model/tool.js';
import { formatToolId, isValidNamespace, isValidToolName } from '../../foundation/model/tool-id.js';
import type { ExecutionContext, ToolBackend } from '../../foundation/ports/tool-backend.js';
import { withDefaults } from '../../foundation/schema/schema-defaults.js';
import type { ToolDefinition } from './define-tool.js';

export const DEFAULT_LOCAL_NAMESPACE = 'local';

/**
 * Turns local tool definitions into catalog entries whose backend calls the handler in process.
 * `kind` tells builtin tools from user modules in the tool's origin.
 */
export function localEntries(
  sourceId: string,
  kind: ToolOriginKind,
  definitions: readonly ToolDefinition[],
): CatalogEntry[] {
  return definitions.map((definition) => {
    const tool = toTool(sourceId, kind, definition);
    return { tool, backend: new LocalBackend(definition) };
  });
}

function toTool(sourceId: string, kind: ToolOriginKind, d: ToolDefinition): Tool {
  const namespace = d.namespace ?? DEFAULT_LOCAL_NAMESPACE;
  if (!isValidNamespace(namespace)) {
    throw new GatewayError(
      'invalid_request',
      `Tool "${d.name}": namespace "${namespace}" is not valid ([A-Za-z0-9_.-])`,
    );
  }
  if (!isValidToolName(d.name)) {
    throw new GatewayError(
      'invalid_request',
      `Tool name ${JSON.stringify(d.name)} must not contain ":", whitespace, or a control, invisible or bidirectional character`,
    );
  }
  const tool: Tool = {
    id: formatToolId({ namespace, name: d.name }),
    namespace,
    name: d.name,
    description: d.description,
    inputSchema: d.inputSchema,
    annotations: { ...d.annotations },
    tags: normalizeTags(d.tags),
    metadata: { ...d.metadata },
    examples: [...(d.examples ?? [])],
    origin: { sourceId, kind, originalName: d.name },
  };
  if (d.version !== undefined) tool.version = d.version;
  if (d.title !== undefined) tool.title = d.title;
  if (d.outputSchema !== undefined) tool.outputSchema = d.outputSchema;
  if (d.notes !== undefined) tool.notes = d.notes;
  if (d.timeoutMs !== undefined) tool.metadata.extra = { ...tool.metadata.extra, timeoutMs: d.timeoutMs };
  return tool;
}

/**
 * Runs a handler in process. Errors propagate; the pipeline maps them to codes. The handler gets
 * its arguments with the defaults of its input schema filled in (zod's `.default(3)` becomes a
 * JSON Schema `default`): its author wrote the schema for exactly that. Downstream MCP, OpenAPI
 * and A2A tools are sent what the caller sent; their own servers apply their own defaults.
 */
class LocalBackend implements ToolBackend {
  constructor(private readonly definition: ToolDefinition) {}

  async execute(_tool: Tool, args: Record<string, unknown>, ctx: ExecutionContext): Promise<unknown> {
    const filled = withDefaults(this.definition.inputSchema, args) as Record<string, unknown>;
    return await this.definition.handler(filled, {
      signal: ctx.signal,
      progress: ctx.progress,
      // A getter: the pipeline makes the per-call logger only when a handler uses it.
      get log() {
        return ctx.log;
      },
      caller: ctx.caller,
    });
  }
}
