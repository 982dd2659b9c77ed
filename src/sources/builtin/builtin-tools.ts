import type { ToolDefinition } from '../local/define-tool.js';
import { jsonQueryTool } from './json-query-tool.js';
import { plantumlTools } from './plantuml-tools.js';
import { textStatsTool } from './text-stats-tool.js';
import { createTimeTools } from './time-tools.js';

/** Options of the built-in tool set; the defaults are what a running gateway wants. */
export interface BuiltinToolsOptions {
  /** The clock of `time:now` (tests fix it). Default: the real time. */
  now?: () => Date;
}

/**
 * The built-in tools (`tools.builtin: true`): offline, read-only utilities agents use constantly.
 * plantuml:encode, plantuml:decode, time:now, time:convert, json:query, text:stats.
 */
export function builtinTools(options: BuiltinToolsOptions = {}): ToolDefinition[] {
  return [...plantumlTools(), ...createTimeTools(options.now), jsonQueryTool, textStatsTool];
}
