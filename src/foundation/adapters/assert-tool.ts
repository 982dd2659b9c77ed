import { GatewayError } from '../model/gateway-error.js';
import type { Tool } from '../model/tool.js';
import { isRecord } from './schema-helpers.js';

/**
 * Throws `invalid_request` unless `value` has the shape of a canonical tool (the fields adapters
 * read). Adapters call it first: a lossy conversion only warns, but something that is not a tool
 * at all is the caller's mistake.
 */
export function assertTool(value: unknown): asserts value is Tool {
  const problem = toolProblem(value);
  if (problem) throw new GatewayError('invalid_request', `Not a tool: ${problem}`);
}

function toolProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return `expected an object, got ${value === null ? 'null' : typeof value}`;
  for (const key of ['id', 'namespace', 'name'] as const) {
    if (typeof value[key] !== 'string' || value[key] === '') return `"${key}" must be a non-empty string`;
  }
  if (typeof value.description !== 'string')
    return `"description" must be a string (tool ${String(value.id)})`;
  if (!isRecord(value.inputSchema)) return `"inputSchema" must be an object (tool ${String(value.id)})`;
  if (value.outputSchema !== undefined && !isRecord(value.outputSchema)) {
    return `"outputSchema" must be an object when present (tool ${String(value.id)})`;
  }
  return undefined;
}
