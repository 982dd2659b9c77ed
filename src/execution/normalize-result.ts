import { GatewayError } from '../foundation/model/gateway-error.js';
import { resultText } from '../foundation/model/result-value.js';
import type { ToolResult } from '../foundation/model/tool.js';

/**
 * Turns a backend's raw output into a ToolResult (docs/DESIGN.md §4, local tool modules):
 * an object with a `content` array is a full MCP result; another plain object becomes
 * structuredContent plus its JSON as text; a string becomes text; `undefined`/`null` an empty
 * text; numbers, booleans and arrays become `{ result }` (structuredContent must be an object).
 * An `isError: true` result becomes `execution_failed` carrying the backend's text.
 */
export function normalizeResult(raw: unknown): ToolResult {
  if (isFullResult(raw)) {
    if (raw.isError === true) {
      throw new GatewayError('execution_failed', errorText(raw) || 'The tool reported an error', {
        details: { result: raw.structuredContent ?? null },
      });
    }
    return raw;
  }
  if (raw === undefined || raw === null) return { content: [{ type: 'text', text: '' }] };
  if (typeof raw === 'string') return { content: [{ type: 'text', text: raw }] };
  const structured =
    typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : { result: raw };
  let text: string;
  try {
    text = JSON.stringify(structured);
  } catch (error) {
    throw new GatewayError(
      'execution_failed',
      `The tool returned a value that is not JSON: ${(error as Error).message}`,
    );
  }
  if (text === undefined)
    throw new GatewayError('execution_failed', 'The tool returned a value that is not JSON');
  return {
    content: [{ type: 'text', text }],
    structuredContent: JSON.parse(text) as Record<string, unknown>,
  };
}

function isFullResult(raw: unknown): raw is ToolResult {
  return typeof raw === 'object' && raw !== null && Array.isArray((raw as { content?: unknown }).content);
}

function errorText(result: ToolResult): string {
  return resultText(result).slice(0, 4000);
}

/** Size of a result as it goes on the wire (JSON bytes). */
export function resultBytes(result: ToolResult): number {
  return Buffer.byteLength(JSON.stringify(result));
}
