import type { CodeExecutor } from '../../composition/code/code-executor.js';
import type { SkillCatalog } from '../../composition/skills/skill-catalog.js';
import type { CallOptions, ToolScope } from '../../composition/tool-scope.js';
import type { ToolsetView } from '../../composition/toolsets/toolset-registry.js';
import type { JsonSchema, ToolAnnotations, ToolResult } from '../../foundation/tool.js';

/** What a metatool handler gets: the caller's scope and the call's options (caller, signal, progress). */
export interface MetatoolContext {
  scope: ToolScope;
  call: CallOptions;
  /** Present when code mode is enabled. */
  code?: CodeExecutor;
  /** The toolsets the caller may use; present when toolsets are configured. */
  toolsets?: ToolsetView;
  /** The configured skills; present when skills are configured. */
  skills?: SkillCatalog;
}

/**
 * A gateway-level MCP tool. `handler` returns either a plain object (sent as structuredContent and
 * as JSON text) or, for `run_tool`, the tool's own result passed through.
 */
export interface Metatool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  annotations: ToolAnnotations;
  /** Served only when the gateway has this capability. */
  requires?: 'code' | 'toolsets' | 'skills';
  handler(
    args: Record<string, unknown>,
    ctx: MetatoolContext,
  ): Promise<Record<string, unknown> | PassThrough>;
}

/** Marks a result that is returned to the client as it is. */
export interface PassThrough {
  passThrough: ToolResult;
}

export function isPassThrough(value: unknown): value is PassThrough {
  return typeof value === 'object' && value !== null && 'passThrough' in value;
}
