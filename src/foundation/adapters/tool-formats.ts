import { GatewayError } from '../model/gateway-error.js';
import type { Tool } from '../model/tool.js';
import { toA2ASkill } from './a2a-skill-adapter.js';
import { toAnthropicTool } from './anthropic-adapter.js';
import { assertTool } from './assert-tool.js';
import type { Conversion } from './conversion.js';
import { toGeminiFunctionDeclaration } from './gemini-adapter.js';
import { toMcpTool } from './mcp-adapter.js';
import { toOpenAIChatTool, toOpenAIResponsesTool } from './openai-adapter.js';
import { buildNameMap, providerToolName } from './provider-names.js';

/** The formats a tool list can be exported in. */
export const TOOL_FORMATS = ['mcp', 'openai', 'openai-responses', 'anthropic', 'gemini', 'a2a'] as const;

/**
 * A tool format. `exportTools` gives, per format, the value a client puts in its request:
 * `mcp` a `tools/list` result (`{ tools }`); `openai` the Chat Completions `tools` array;
 * `openai-responses` the Responses API `tools` array; `anthropic` the Messages API `tools` array;
 * `gemini` one Gemini `Tool` (`{ functionDeclarations }`); `a2a` an agent card's `skills` array.
 */
export type ToolFormat = (typeof TOOL_FORMATS)[number];

/** Options of `exportTools`. */
export interface ExportOptions {
  /** OpenAI formats only: strict mode (Structured Outputs). Default false. */
  strict?: boolean;
}

/** Options of `formatTool`. */
export interface FormatToolOptions extends ExportOptions {
  /** The name to give the tool; default its provider name (`providerToolName`), for A2A its id. */
  name?: string;
}

/** True when `value` names a supported format (e.g. a `--format` flag). */
export function isToolFormat(value: string): value is ToolFormat {
  return (TOOL_FORMATS as readonly string[]).includes(value);
}

/**
 * A list of tools in one format. Names come from one `buildNameMap` over the whole list, so they
 * are valid for every provider and never collide (A2A skills keep the tool ids). Warnings of all
 * tools are concatenated, each naming its tool.
 */
export function exportTools(
  tools: readonly Tool[],
  format: ToolFormat,
  options: ExportOptions = {},
): Conversion<unknown> {
  checkFormat(format);
  if (!Array.isArray(tools)) throw new GatewayError('invalid_request', 'Expected a list of tools');
  for (const tool of tools) assertTool(tool);
  const names = buildNameMap(tools);
  const warnings: string[] = [];
  const items = tools.map((tool) => {
    const name = format === 'a2a' ? tool.id : names.toName(tool.id);
    const converted = convert(tool, format, { ...options, name });
    warnings.push(...converted.warnings);
    return converted.value;
  });
  const value =
    format === 'mcp' ? { tools: items } : format === 'gemini' ? { functionDeclarations: items } : items;
  return { value, warnings };
}

/**
 * One tool in one format: the list entry `exportTools` would produce (for Gemini the function
 * declaration itself). Used where a single tool is shown, e.g. `describe_tool` with `format`.
 */
export function formatTool(
  tool: Tool,
  format: ToolFormat,
  options: FormatToolOptions = {},
): Conversion<unknown> {
  checkFormat(format);
  assertTool(tool);
  const name = options.name ?? (format === 'a2a' ? tool.id : providerToolName(tool));
  return convert(tool, format, { ...options, name });
}

function convert(
  tool: Tool,
  format: ToolFormat,
  options: FormatToolOptions & { name: string },
): Conversion<unknown> {
  switch (format) {
    case 'mcp':
      return toMcpTool(tool, { name: options.name });
    case 'openai':
      return toOpenAIChatTool(tool, { name: options.name, strict: options.strict });
    case 'openai-responses':
      return toOpenAIResponsesTool(tool, { name: options.name, strict: options.strict });
    case 'anthropic':
      return toAnthropicTool(tool, { name: options.name });
    case 'gemini':
      return toGeminiFunctionDeclaration(tool, { name: options.name });
    case 'a2a':
      return toA2ASkill(tool);
  }
}

function checkFormat(format: string): asserts format is ToolFormat {
  if (!isToolFormat(format)) {
    throw new GatewayError(
      'invalid_request',
      `Unknown tool format "${format}"; expected one of ${TOOL_FORMATS.join(', ')}`,
    );
  }
}
