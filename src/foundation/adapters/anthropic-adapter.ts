import type { JsonSchema, Tool } from '../model/tool.js';
import { assertTool } from './assert-tool.js';
import { type Conversion, WarningCollector, warnDroppedFields } from './conversion.js';
import {
  importedTool,
  readEntry,
  readSchema,
  readString,
  type ToolImportOptions,
  warnUnknownFields,
} from './imported-tool.js';
import { toObjectRootSchema } from './object-root-schema.js';
import { providerToolName } from './provider-names.js';
import { cloneJson } from './schema-helpers.js';

/** An Anthropic Messages API client tool (`tools` entry). */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: JsonSchema;
}

/** Options of `toAnthropicTool`. */
export interface AnthropicAdapterOptions {
  /** The tool name; default the tool's provider name (`providerToolName`). */
  name?: string;
}

/** Fields of a client tool definition that carry no part of the tool itself. */
const REQUEST_FIELDS = ['type', 'cache_control', 'strict', 'defer_loading'];

/**
 * A canonical tool as an Anthropic tool. `input_schema` is JSON Schema and passes through, except
 * at its root: it must be `type: "object"` and the API refuses `oneOf`/`anyOf`/`allOf` there, so
 * such a root is flattened into one object (with a warning). Title, output schema and annotations
 * have no place in an Anthropic tool.
 */
export function toAnthropicTool(
  tool: Tool,
  options: AnthropicAdapterOptions = {},
): Conversion<AnthropicTool> {
  assertTool(tool);
  const warnings = new WarningCollector(`${tool.id} (anthropic)`);
  warnDroppedFields(tool, ['title', 'outputSchema', 'annotations'], warnings);
  const value: AnthropicTool = {
    name: options.name ?? providerToolName(tool),
    description: tool.description,
    input_schema: toObjectRootSchema(tool.inputSchema, warnings),
  };
  return { value, warnings: warnings.list() };
}

/** An Anthropic tool definition as a canonical tool (origin kind `local` by default). */
export function fromAnthropicTool(value: unknown, options: ToolImportOptions): Conversion<Tool> {
  const entry = readEntry(value, 'Anthropic');
  const warnings = new WarningCollector(`${entry.name} (from anthropic)`);
  const inputSchema = readSchema(entry.input_schema, 'input_schema', 'Anthropic');
  if (inputSchema === undefined) warnings.add('no input_schema; assumed an object with any properties');
  const tool = importedTool(
    {
      name: entry.name,
      description: readString(entry.description, 'description', 'Anthropic'),
      inputSchema: cloneJson(inputSchema ?? { type: 'object' }),
    },
    options,
    'local',
    warnings,
  );
  warnUnknownFields(entry, ['name', 'description', 'input_schema', ...REQUEST_FIELDS], warnings);
  return { value: tool, warnings: warnings.list() };
}
