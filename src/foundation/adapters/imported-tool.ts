import { GatewayError } from '../model/gateway-error.js';
import type { JsonSchema, Tool, ToolAnnotations, ToolOriginKind } from '../model/tool.js';
import { formatToolId, isValidNamespace, parseToolId } from '../model/tool-id.js';
import type { WarningCollector } from './conversion.js';
import type { ProviderNameMap } from './provider-names.js';
import { isRecord } from './schema-helpers.js';

/** Where a tool read from a provider format belongs. */
export interface ToolImportOptions {
  /** Namespace of the new tool (unless `names` knows the name). */
  namespace: string;
  /** The source that will execute it (`origin.sourceId`). */
  sourceId: string;
  /** `origin.kind`; each adapter has its own default (`mcp` for MCP entries, else `local`). */
  kind?: ToolOriginKind;
  /** A name map from an export: a name it knows turns back into that tool's own id. */
  names?: Pick<ProviderNameMap, 'toId'>;
}

/** The fields a provider entry can carry over into a canonical tool. */
export interface ImportedFields {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema | undefined;
  annotations?: ToolAnnotations | undefined;
}

/**
 * A canonical tool from a provider entry; tags, metadata and examples start empty (no provider
 * format carries them). A name that cannot be a tool name (`:` or whitespace) is made one, with a
 * warning; `origin.originalName` keeps the name as the provider spelled it.
 */
export function importedTool(
  fields: ImportedFields,
  options: ToolImportOptions,
  defaultKind: ToolOriginKind,
  warnings: WarningCollector,
): Tool {
  if (!isValidNamespace(options.namespace)) {
    throw new GatewayError('invalid_request', `"${options.namespace}" is not a valid namespace`);
  }
  const known = options.names?.toId(fields.name);
  const parts = known
    ? parseToolId(known)
    : { namespace: options.namespace, name: toolName(fields.name, warnings) };
  const tool: Tool = {
    id: formatToolId(parts),
    namespace: parts.namespace,
    name: parts.name,
    description: fields.description ?? '',
    inputSchema: fields.inputSchema,
    annotations: fields.annotations ?? {},
    tags: [],
    metadata: {},
    examples: [],
    origin: { sourceId: options.sourceId, kind: options.kind ?? defaultKind, originalName: fields.name },
  };
  if (parts.version) tool.version = parts.version;
  if (fields.title !== undefined) tool.title = fields.title;
  if (fields.outputSchema !== undefined) tool.outputSchema = fields.outputSchema;
  return tool;
}

function toolName(name: string, warnings: WarningCollector): string {
  const safe = name.replace(/[\s:]/g, '_').slice(0, 128);
  if (safe !== name) warnings.add(`name "${name}" is not a valid tool name; renamed "${safe}"`);
  return safe;
}

/** Reads a provider entry: throws `invalid_request` when it is not an object with a name. */
export function readEntry(value: unknown, format: string): Record<string, unknown> & { name: string } {
  if (!isRecord(value)) throw new GatewayError('invalid_request', `Not a ${format} tool: expected an object`);
  if (typeof value.name !== 'string' || value.name === '') {
    throw new GatewayError('invalid_request', `Not a ${format} tool: "name" must be a non-empty string`);
  }
  return value as Record<string, unknown> & { name: string };
}

/** Reads an optional schema field of a provider entry; throws when present but not an object. */
export function readSchema(value: unknown, field: string, format: string): JsonSchema | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) {
    throw new GatewayError('invalid_request', `Not a ${format} tool: "${field}" must be an object`);
  }
  return value;
}

/** Reads an optional string field; a non-string is a malformed entry. */
export function readString(value: unknown, field: string, format: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    throw new GatewayError('invalid_request', `Not a ${format} tool: "${field}" must be a string`);
  }
  return value;
}

/** Warns about every field of `entry` outside `known`: none of them reaches the canonical tool. */
export function warnUnknownFields(
  entry: Record<string, unknown>,
  known: readonly string[],
  warnings: WarningCollector,
): void {
  const unknown = Object.keys(entry).filter((key) => !known.includes(key));
  if (unknown.length > 0)
    warnings.add(`fields ${unknown.map((k) => `"${k}"`).join(', ')} have no canonical equivalent; dropped`);
}
