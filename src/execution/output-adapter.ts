import { resultText } from '../foundation/model/result-value.js';
import type { Tool, ToolResult } from '../foundation/model/tool.js';
import { isRecord } from '../foundation/util/is-record.js';

/** How a text answer becomes structured content (override `outputAdapter`). */
export interface OutputAdapter {
  /** The structured result is `{ [text]: <the answer's text> }`. */
  text: string;
}

/** The output adapter a tool carries (`metadata.extra.outputAdapter`, set by an override). */
export function outputAdapterOf(tool: Pick<Tool, 'metadata'>): OutputAdapter | undefined {
  const value = tool.metadata.extra?.outputAdapter;
  return isRecord(value) && typeof value.text === 'string' ? { text: value.text } : undefined;
}

/**
 * Gives structure to a text answer of a tool that declares an output schema (its own or an
 * override's): with an `outputAdapter`, the text goes into the declared field; without, text
 * that is a JSON object becomes the structured content. The result is then validated against the
 * schema as any structured result is. A result that already has structure, an error, or a tool
 * without an output schema is returned as it is; text that fits neither rule (not JSON, or JSON
 * that is no object) stays text, and the output check reports it. Never throws.
 */
export function adaptOutput(tool: Tool, result: ToolResult): ToolResult {
  if (!tool.outputSchema || result.structuredContent !== undefined || result.isError) return result;
  if (!result.content.some((block) => block.type === 'text')) return result;
  const text = resultText(result);
  const adapter = outputAdapterOf(tool);
  if (adapter) return { ...result, structuredContent: { [adapter.text]: text } };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return result;
  }
  // JSON that is no object stays text: the output check then says there is no structured result.
  return isRecord(parsed) ? { ...result, structuredContent: parsed } : result;
}
