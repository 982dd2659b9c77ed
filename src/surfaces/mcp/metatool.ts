import type { z } from 'zod';
import type { CodeExecutor } from '../../composition/code/code-executor.js';
import type { SkillCatalog } from '../../composition/skills/skill-catalog.js';
import type { CallOptions, ToolScope } from '../../composition/tool-scope.js';
import type { ToolsetView } from '../../composition/toolsets/toolset-registry.js';
import type { JsonSchema, ToolAnnotations, ToolResult } from '../../foundation/model/tool.js';
import { parseInput, publishedInputSchema } from '../../foundation/schema/zod-input.js';
import type { ResourceNaming } from './resource-naming.js';

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
  /**
   * How downstream resources are named for this session's client: `describe_tool` and `run_tool`
   * name a tool's MCP App (`ui://`) as `resources/list` does. Absent: as the servers wrote them.
   */
  resources?: ResourceNaming;
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
  /** Takes the arguments as the client sent them; they are checked against `inputSchema` first. */
  handler(args: Record<string, unknown>, ctx: MetatoolContext): Promise<MetatoolValue>;
}

/** What a metatool answers: a plain object, or a tool result passed through. */
export type MetatoolValue = Record<string, unknown> | PassThrough;

/** A metatool as written: its input as a zod object, and a handler typed by it. */
export interface MetatoolDefinition<S extends z.ZodObject> extends Omit<Metatool, 'inputSchema' | 'handler'> {
  /** The arguments; published in `tools/list` as JSON Schema, and the handler's argument type. */
  input: S;
  handler(args: z.output<S>, ctx: MetatoolContext): Promise<MetatoolValue>;
}

/**
 * A metatool from its definition (the way the MCP SDK's `registerTool` types a tool's handler):
 * `inputSchema` is the JSON Schema of `input`, and the handler gets the arguments parsed by it —
 * typed, defaults filled in. The session server checks the arguments against `inputSchema` before
 * the handler runs, so a bad argument fails there as `validation_input` naming the field; the parse
 * here fails the same way if a caller bypasses that check (a direct call, a test).
 */
export function defineMetatool<S extends z.ZodObject>(definition: MetatoolDefinition<S>): Metatool {
  const { input, handler, ...rest } = definition;
  return {
    ...rest,
    inputSchema: publishedInputSchema(input),
    handler: async (args, ctx) => handler(parseInput(input, args, `Invalid arguments for ${rest.name}`), ctx),
  };
}

/**
 * The hints of a metatool that only reads. They are paid for in every `tools/list`, so only what
 * differs from the MCP defaults is sent: `destructiveHint` and `idempotentHint` mean something only
 * when `readOnlyHint` is false, and the display title is the tool's own `title`.
 */
export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

/**
 * The hints of a metatool that runs tools (`run_tool`, `run_chain`, `execute_code`, `run_skill`): it
 * can reach any tool, so it takes the worst case — which is the MCP default for every hint
 * (not read-only, destructive, not idempotent, open world), so nothing needs sending.
 */
export const RUNS_TOOLS: ToolAnnotations = {};

/** Marks a result that is returned to the client as it is. */
export interface PassThrough {
  passThrough: ToolResult;
}

export function isPassThrough(value: unknown): value is PassThrough {
  return typeof value === 'object' && value !== null && 'passThrough' in value;
}
