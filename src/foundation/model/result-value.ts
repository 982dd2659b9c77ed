import type { ToolResult } from './tool.js';

/** The text blocks of a result, joined with newlines (other block types are left out). */
export function resultText(result: ToolResult): string {
  return result.content
    .filter((block): block is { type: 'text'; text: string } => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}

/**
 * A result as a value for the next step of a chain, a skill's `steps.<id>.result` and a call in
 * code mode: its structuredContent when present, else its text parsed as JSON (of any JSON type:
 * `"[1,2]"` is an array, `"42"` a number) when it parses, else the text.
 *
 * One function for the three, because they once disagreed: a chain and code mode parsed only text
 * starting with `{`, so the same tool gave an array in a skill and a string in a chain.
 */
export function resultValue(result: ToolResult): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  const text = resultText(result);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
