import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ToolUi } from './tool-ui.js';

/** A JSON Schema document (2020-12 or draft-07), kept as plain data. */
export type JsonSchema = Record<string, unknown>;

/** MCP tool annotations (hints, never guarantees). */
export interface ToolAnnotations {
  title?: string | undefined;
  readOnlyHint?: boolean | undefined;
  destructiveHint?: boolean | undefined;
  idempotentHint?: boolean | undefined;
  openWorldHint?: boolean | undefined;
}

/** The keys of `ToolAnnotations`, in MCP's order. */
export const TOOL_ANNOTATION_KEYS = [
  'title',
  'readOnlyHint',
  'destructiveHint',
  'idempotentHint',
  'openWorldHint',
] as const satisfies readonly (keyof ToolAnnotations)[];

/** Facts used for ranking and filtering; all optional. */
export interface ToolMetadata {
  /** Relative cost of one call (unitless; lower is cheaper). */
  cost?: number;
  latencyHintMs?: number;
  /** Explicit side-effect flag; when absent a tool has side effects unless `readOnlyHint` is true. */
  sideEffect?: boolean;
  category?: string;
  extra?: Record<string, unknown>;
}

/** A worked example shown by `describe_tool` (detail `full`) and `list_tool_examples`. */
export interface ToolExample {
  title: string;
  args: Record<string, unknown>;
  resultHint?: string;
}

/**
 * The kind of what a tool comes from: a source kind of `SOURCE_DRIVERS` (`sources/source-drivers.ts`)
 * or `skill`. Opaque below the sources: what depends on a kind is a flag of its driver
 * (`trustGated`), handed down by the app.
 */
export type ToolOriginKind = string;

/** Where a tool came from: the source that executes it and the name it has there. */
export interface ToolOrigin {
  sourceId: string;
  kind: ToolOriginKind;
  originalName: string;
}

/** The canonical tool: every source produces it, every surface and adapter consumes it. */
export interface Tool {
  /** `namespace:name`, or `namespace:name:version` when versioned. */
  id: string;
  namespace: string;
  name: string;
  version?: string;
  title?: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations: ToolAnnotations;
  /** Normalised: lowercase, `[a-z0-9-_.]`, deduplicated. */
  tags: string[];
  metadata: ToolMetadata;
  examples: ToolExample[];
  notes?: string;
  /**
   * The source's own `_meta` for the tool (MCP), kept as it came and passed through wherever the
   * tool is listed as an MCP tool (flat `tools/list`, describe, the manifest, the MCP export).
   */
  meta?: Record<string, unknown>;
  /**
   * The tool's MCP App (SEP-1865), read from `meta` when the tool is catalogued (`toolUiOf`):
   * its `ui://` resource and who may see it. A tool whose visibility leaves out the model is
   * hidden from model-facing lists and search (`isModelVisible`) and stays callable by name.
   */
  ui?: ToolUi;
  origin: ToolOrigin;
}

/** A tool call's outcome, in MCP's CallToolResult shape. */
export type ToolResult = CallToolResult;

/** True when a tool may change the world: not read-only, unless its metadata says otherwise. */
export function hasSideEffects(tool: Pick<Tool, 'annotations' | 'metadata'>): boolean {
  if (tool.metadata.sideEffect !== undefined) return tool.metadata.sideEffect;
  return tool.annotations.readOnlyHint !== true;
}
