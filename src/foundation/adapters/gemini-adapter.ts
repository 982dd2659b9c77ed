import { GatewayError } from '../model/gateway-error.js';
import type { Tool } from '../model/tool.js';
import { assertTool } from './assert-tool.js';
import { type Conversion, WarningCollector, warnDroppedFields } from './conversion.js';
import { fromGeminiSchema, type GeminiSchema, toGeminiSchema } from './gemini-schema.js';
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
import { cloneJson, isRecord } from './schema-helpers.js';

/** A Gemini `FunctionDeclaration`. */
export interface GeminiFunctionDeclaration {
  name: string;
  description: string;
  /** Omitted for a function without parameters (Gemini refuses an OBJECT without properties). */
  parameters?: GeminiSchema;
  /** The function's result, from the tool's output schema. */
  response?: GeminiSchema;
}

/** A Gemini `Tool`: the value to put in a request's `tools` array. */
export interface GeminiTool {
  functionDeclarations: GeminiFunctionDeclaration[];
}

/** Options of `toGeminiFunctionDeclaration`. */
export interface GeminiAdapterOptions {
  /** The function name; default the tool's provider name (`providerToolName`). */
  name?: string;
}

/**
 * A canonical tool as a Gemini function declaration, its schemas converted to Gemini's OpenAPI
 * subset (see `toGeminiSchema`). Title and annotations have no place in a declaration.
 */
export function toGeminiFunctionDeclaration(
  tool: Tool,
  options: GeminiAdapterOptions = {},
): Conversion<GeminiFunctionDeclaration> {
  assertTool(tool);
  const warnings = new WarningCollector(`${tool.id} (gemini)`);
  warnDroppedFields(tool, ['title', 'annotations'], warnings);
  const declaration: GeminiFunctionDeclaration = {
    name: options.name ?? providerToolName(tool),
    description: tool.description,
  };
  const root = toObjectRootSchema(tool.inputSchema, warnings);
  if (isRecord(root.properties) && Object.keys(root.properties).length > 0) {
    declaration.parameters = toGeminiSchema(root, warnings);
  }
  if (tool.outputSchema !== undefined) {
    declaration.response = toGeminiSchema(tool.outputSchema, warnings, '/outputSchema');
  }
  return { value: declaration, warnings: warnings.list() };
}

/**
 * A Gemini function declaration as a canonical tool (origin kind `local` by default). Reads
 * `parameters`/`response` (OpenAPI subset, converted back to JSON Schema) or their JSON Schema
 * twins `parametersJsonSchema`/`responseJsonSchema` (taken as they are).
 */
export function fromGeminiFunctionDeclaration(value: unknown, options: ToolImportOptions): Conversion<Tool> {
  const entry = readEntry(value, 'Gemini function');
  const warnings = new WarningCollector(`${entry.name} (from gemini)`);
  const format = 'Gemini function';
  const parameters = readSchema(entry.parameters, 'parameters', format);
  const parametersJson = readSchema(entry.parametersJsonSchema, 'parametersJsonSchema', format);
  const response = readSchema(entry.response, 'response', format);
  const responseJson = readSchema(entry.responseJsonSchema, 'responseJsonSchema', format);
  const inputSchema = parametersJson
    ? cloneJson(parametersJson)
    : parameters
      ? fromGeminiSchema(parameters, warnings)
      : { type: 'object', properties: {} };
  const outputSchema = responseJson
    ? cloneJson(responseJson)
    : response
      ? fromGeminiSchema(response, warnings, '/outputSchema')
      : undefined;
  const tool = importedTool(
    {
      name: entry.name,
      description: readString(entry.description, 'description', format),
      inputSchema,
      outputSchema,
    },
    options,
    'local',
    warnings,
  );
  warnUnknownFields(
    entry,
    ['name', 'description', 'parameters', 'parametersJsonSchema', 'response', 'responseJsonSchema'],
    warnings,
  );
  return { value: tool, warnings: warnings.list() };
}

/** Every declaration of a Gemini `Tool` (`{ functionDeclarations }`) as canonical tools. */
export function fromGeminiTool(value: unknown, options: ToolImportOptions): Conversion<Tool[]> {
  if (!isRecord(value) || !Array.isArray(value.functionDeclarations)) {
    throw new GatewayError('invalid_request', 'Not a Gemini tool: expected { functionDeclarations: [...] }');
  }
  const tools: Tool[] = [];
  const warnings: string[] = [];
  for (const declaration of value.functionDeclarations) {
    const converted = fromGeminiFunctionDeclaration(declaration, options);
    tools.push(converted.value);
    warnings.push(...converted.warnings);
  }
  return { value: tools, warnings };
}
