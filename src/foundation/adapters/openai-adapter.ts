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
import { toOpenAIStrictSchema } from './openai-strict-schema.js';
import { providerToolName } from './provider-names.js';
import { cloneJson, isRecord } from './schema-helpers.js';

/** OpenAI rejects a longer function description ("string too long … maximum length 1024"). */
export const OPENAI_DESCRIPTION_LIMIT = 1024;

/** The function of a Chat Completions tool. */
export interface OpenAIFunction {
  name: string;
  description: string;
  parameters: JsonSchema;
  strict?: boolean;
}

/** A Chat Completions `tools` entry. */
export interface OpenAIChatTool {
  type: 'function';
  function: OpenAIFunction;
}

/** A Responses API `tools` entry (flat; `strict` always stated, as the API defaults it to true). */
export interface OpenAIResponsesTool {
  type: 'function';
  name: string;
  description: string;
  parameters: JsonSchema;
  strict: boolean;
}

/** Options of `toOpenAIChatTool` and `toOpenAIResponsesTool`. */
export interface OpenAIAdapterOptions {
  /** The function name; default the tool's provider name (`providerToolName`). */
  name?: string | undefined;
  /**
   * Strict mode (Structured Outputs): the parameters are rewritten to the strict subset. A tool
   * whose schema has no strict equivalent is exported with `strict: false` and a warning.
   */
  strict?: boolean | undefined;
}

/** A canonical tool as a Chat Completions `tools` entry. */
export function toOpenAIChatTool(tool: Tool, options: OpenAIAdapterOptions = {}): Conversion<OpenAIChatTool> {
  const { value, warnings } = openAIFunction(tool, options, 'openai');
  const fn: OpenAIFunction = {
    name: value.name,
    description: value.description,
    parameters: value.parameters,
  };
  // Chat Completions defaults to non-strict; say `strict` only when it was asked about.
  if (options.strict !== undefined) fn.strict = value.strict;
  return { value: { type: 'function', function: fn }, warnings };
}

/** A canonical tool as a Responses API `tools` entry. */
export function toOpenAIResponsesTool(
  tool: Tool,
  options: OpenAIAdapterOptions = {},
): Conversion<OpenAIResponsesTool> {
  const { value, warnings } = openAIFunction(tool, options, 'openai-responses');
  return { value: { type: 'function', ...value }, warnings };
}

/**
 * An OpenAI function tool as a canonical tool: a Chat Completions entry (`{ type, function }`), a
 * Responses entry (flat) or a bare function (`{ name, description, parameters }`). Parameters are
 * taken as they are; a strict schema keeps its required-and-nullable properties (which of them were
 * optional cannot be told apart any more).
 */
export function fromOpenAITool(value: unknown, options: ToolImportOptions): Conversion<Tool> {
  const wrapped = isRecord(value) && value.type === 'function' && isRecord(value.function);
  const entry = readEntry(wrapped ? (value as { function: unknown }).function : value, 'OpenAI function');
  const warnings = new WarningCollector(`${entry.name} (from openai)`);
  const parameters = readSchema(entry.parameters, 'parameters', 'OpenAI function');
  const tool = importedTool(
    {
      name: entry.name,
      description: readString(entry.description, 'description', 'OpenAI function'),
      // OpenAI allows omitting parameters for a function without arguments.
      inputSchema: cloneJson(parameters ?? { type: 'object', properties: {} }),
    },
    options,
    'local',
    warnings,
  );
  if (entry.strict === true)
    warnings.add('strict parameters taken as they are (optional properties stay nullable)');
  warnUnknownFields(entry, ['type', 'name', 'description', 'parameters', 'strict'], warnings);
  return { value: tool, warnings: warnings.list() };
}

interface FunctionParts {
  name: string;
  description: string;
  parameters: JsonSchema;
  strict: boolean;
}

function openAIFunction(
  tool: Tool,
  options: OpenAIAdapterOptions,
  format: string,
): Conversion<FunctionParts> {
  assertTool(tool);
  const label = options.strict ? `${format} strict` : format;
  const warnings = new WarningCollector(`${tool.id} (${label})`);
  warnDroppedFields(tool, ['title', 'outputSchema', 'annotations'], warnings);
  // OpenAI: "schema must have type 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at
  // the top level", strict or not.
  const root = toObjectRootSchema(tool.inputSchema, warnings, { forbidden: ['enum', 'not'] });
  // OpenAI wants `properties` on the root object even when there are none.
  if (!isRecord(root.properties)) root.properties = {};
  let parameters = root;
  let strict = false;
  if (options.strict) {
    const strictWarnings = new WarningCollector(`${tool.id} (${label})`);
    const result = toOpenAIStrictSchema(root, strictWarnings);
    if (result.schema) {
      parameters = result.schema;
      strict = true;
      warnings.merge(strictWarnings);
    } else {
      warnings.add(`strict mode impossible (${result.blockers.join('; ')}); exported with strict: false`);
    }
  }
  return {
    value: {
      name: options.name ?? providerToolName(tool),
      description: truncate(tool.description, warnings),
      parameters,
      strict,
    },
    warnings: warnings.list(),
  };
}

/** Cuts a description to OpenAI's limit, counting code points (what the API counts). */
function truncate(description: string, warnings: WarningCollector): string {
  const chars = Array.from(description);
  if (chars.length <= OPENAI_DESCRIPTION_LIMIT) return description;
  warnings.add(`description of ${chars.length} characters truncated to ${OPENAI_DESCRIPTION_LIMIT}`);
  return `${chars.slice(0, OPENAI_DESCRIPTION_LIMIT - 1).join('')}…`;
}
