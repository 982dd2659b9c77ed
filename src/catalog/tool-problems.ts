import type { Tool } from '../foundation/model/tool.js';
import { isValidNamespace, isValidToolName, parseToolId } from '../foundation/model/tool-id.js';
import { schemaPatternProblem } from '../foundation/schema/bounded-regexp.js';
import { MAX_SCHEMA_DEPTH, pathPastDepth, shortPath } from '../foundation/util/json-depth.js';
import { terminalSafe } from '../foundation/util/terminal-safe.js';

// Why a tool cannot be served, found when it arrives: the catalog refuses that one tool and the
// rest of its source serves.

/**
 * What is wrong with a tool's schemas — nested deeper than `MAX_SCHEMA_DEPTH`, or a `pattern` the
 * linear-time engine cannot run — as `"<pointer>: <reason>"`, or undefined when both are usable.
 */
export function schemaProblemOf(tool: Tool): string | undefined {
  const { inputSchema, outputSchema } = tool;
  // Depth first, iteratively: the pattern walk (and everything after it) recurses.
  return (
    depthProblem(inputSchema, '/inputSchema') ??
    depthProblem(outputSchema, '/outputSchema') ??
    schemaPatternProblem(inputSchema, '/inputSchema') ??
    schemaPatternProblem(outputSchema, '/outputSchema')
  );
}

/**
 * What is wrong with a tool's name or id, the id written with its characters escaped (it goes to
 * logs, `/readyz` and terminals), or undefined when both are usable.
 */
export function unusableName(tool: Tool): string | undefined {
  if (isValidToolName(tool.name) && isValidNamespace(tool.namespace) && isValidToolId(tool.id))
    return undefined;
  return `"${terminalSafe(tool.id)}" holds whitespace, ":" in its name, or a control, invisible or bidirectional character`;
}

function isValidToolId(id: string): boolean {
  try {
    parseToolId(id);
    return true;
  } catch {
    return false;
  }
}

/** `"<pointer>: <reason>"` for a schema nested deeper than `MAX_SCHEMA_DEPTH`, or undefined. */
function depthProblem(schema: unknown, at: string): string | undefined {
  const past = pathPastDepth(schema, MAX_SCHEMA_DEPTH);
  if (past === undefined) return undefined;
  return `${at}${shortPath(past === '/' ? '' : past)}: the schema nests deeper than ${MAX_SCHEMA_DEPTH} levels`;
}
