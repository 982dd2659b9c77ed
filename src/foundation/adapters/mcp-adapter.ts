import { type JsonSchema, TOOL_ANNOTATION_KEYS, type Tool, type ToolAnnotations } from '../model/tool.js';
import { assertTool } from './assert-tool.js';
import { type Conversion, WarningCollector } from './conversion.js';
import {
  importedTool,
  readEntry,
  readSchema,
  readString,
  type ToolImportOptions,
  warnUnknownFields,
} from './imported-tool.js';
import { toObjectRootSchema } from './object-root-schema.js';
import { cloneJson, isRecord } from './schema-helpers.js';

/** One entry of an MCP `tools/list` result. */
export interface McpToolEntry {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: ToolAnnotations;
  _meta?: Record<string, unknown>;
}

/** Options of `toMcpTool`. */
export interface McpAdapterOptions {
  /** The name on the MCP wire; default the tool id. */
  name?: string;
}

const ANNOTATION_KEYS = TOOL_ANNOTATION_KEYS;
const ENTRY_FIELDS = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations', '_meta'];

/**
 * A canonical tool as an MCP `tools/list` entry. MCP carries every field of the tool's contract;
 * the only possible change is the input schema's root, which MCP requires to be `type: "object"`
 * (combinators next to it are valid JSON Schema and stay).
 */
export function toMcpTool(tool: Tool, options: McpAdapterOptions = {}): Conversion<McpToolEntry> {
  assertTool(tool);
  const warnings = new WarningCollector(`${tool.id} (mcp)`);
  const annotations = definedAnnotations(tool.annotations);
  // Built in the documented key order (name, title, description, …) for readable output.
  const entry: McpToolEntry = {
    name: options.name ?? tool.id,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    description: tool.description,
    inputSchema: toObjectRootSchema(tool.inputSchema, warnings, { combinators: 'keep' }),
    ...(tool.outputSchema === undefined ? {} : { outputSchema: cloneJson(tool.outputSchema) }),
    ...(annotations && { annotations }),
    ...(tool.meta === undefined ? {} : { _meta: cloneJson(tool.meta) }),
  };
  return { value: entry, warnings: warnings.list() };
}

/**
 * An MCP `tools/list` entry as a canonical tool of `options.namespace` (origin kind `mcp` by
 * default). `_meta` is kept as it came; fields MCP has and the canonical tool does not (`icons`,
 * `execution`…) are reported as dropped.
 */
export function fromMcpTool(value: unknown, options: ToolImportOptions): Conversion<Tool> {
  const entry = readEntry(value, 'MCP');
  const warnings = new WarningCollector(`${entry.name} (from mcp)`);
  const inputSchema = readSchema(entry.inputSchema, 'inputSchema', 'MCP');
  const tool = importedTool(
    {
      name: entry.name,
      title: readString(entry.title, 'title', 'MCP'),
      description: readString(entry.description, 'description', 'MCP'),
      inputSchema: cloneJson(inputSchema ?? { type: 'object' }),
      outputSchema: cloneJson(readSchema(entry.outputSchema, 'outputSchema', 'MCP')),
      annotations: readAnnotations(entry.annotations, warnings),
    },
    options,
    'mcp',
    warnings,
  );
  if (inputSchema === undefined) warnings.add('no inputSchema; assumed an object with any properties');
  if (isRecord(entry._meta)) tool.meta = cloneJson(entry._meta);
  warnUnknownFields(entry, ENTRY_FIELDS, warnings);
  return { value: tool, warnings: warnings.list() };
}

function definedAnnotations(annotations: ToolAnnotations): ToolAnnotations | undefined {
  const out: ToolAnnotations = {};
  for (const key of ANNOTATION_KEYS) {
    if (annotations[key] !== undefined) Object.assign(out, { [key]: annotations[key] });
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function readAnnotations(value: unknown, warnings: WarningCollector): ToolAnnotations | undefined {
  if (!isRecord(value)) return undefined;
  const out: ToolAnnotations = {};
  for (const [key, hint] of Object.entries(value)) {
    const known = (ANNOTATION_KEYS as readonly string[]).includes(key);
    const valid = key === 'title' ? typeof hint === 'string' : typeof hint === 'boolean';
    if (known && valid) Object.assign(out, { [key]: hint });
    else warnings.add(`annotation "${key}" is not a known MCP annotation; dropped`);
  }
  return out;
}
