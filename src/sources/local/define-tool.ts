import { z } from 'zod';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { JsonSchema, ToolAnnotations, ToolExample, ToolMetadata } from '../../foundation/model/tool.js';
import type { Logger } from '../../foundation/ports/logger.js';
import type { CallerContext, ProgressUpdate } from '../../foundation/ports/tool-backend.js';

/** What a local tool's handler receives besides its arguments. */
export interface ToolContext {
  /** Aborted when the call times out or is cancelled. Long handlers should watch it. */
  signal: AbortSignal;
  /** Reports progress to the client (sent only when the client asked for progress). */
  progress: (update: ProgressUpdate) => void;
  log: Logger;
  caller: CallerContext;
}

/** A schema given either as JSON Schema or as a zod (v4) schema. */
export type SchemaInput = JsonSchema | z.ZodType;

/** The definition of a local tool, as written in a tool module. */
export interface ToolDefinitionInput<Args = Record<string, unknown>> {
  name: string;
  /** Default: `local`. */
  namespace?: string;
  version?: string;
  title?: string;
  description: string;
  inputSchema: SchemaInput;
  outputSchema?: SchemaInput;
  annotations?: ToolAnnotations;
  tags?: string[];
  metadata?: ToolMetadata;
  examples?: ToolExample[];
  notes?: string;
  /** Per-tool timeout; overrides the gateway default. */
  timeoutMs?: number;
  /**
   * Runs the tool. Return an object (structured result), a string (text), or a full MCP result
   * (`{ content: [...] }`). A thrown error becomes `execution_failed` (a thrown GatewayError keeps
   * its code).
   */
  handler(args: Args, ctx: ToolContext): unknown;
}

/** A validated definition with JSON Schemas; what `defineTool` returns. */
export interface ToolDefinition
  extends Omit<ToolDefinitionInput, 'inputSchema' | 'outputSchema' | 'handler'> {
  readonly [DEFINED]: true;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema | undefined;
  handler(args: Record<string, unknown>, ctx: ToolContext): unknown;
}

const DEFINED = Symbol.for('aperture.tool-definition');

/**
 * Declares a local tool. Validates the definition at once (a bad one throws `invalid_request`
 * naming the field) and converts zod schemas to JSON Schema.
 */
export function defineTool<Args = Record<string, unknown>>(input: ToolDefinitionInput<Args>): ToolDefinition {
  const where = typeof input?.name === 'string' ? `tool "${input.name}"` : 'tool definition';
  if (typeof input !== 'object' || input === null) throw bad(where, 'must be an object');
  if (typeof input.name !== 'string' || input.name.trim() === '')
    throw bad(where, '"name" must be a non-empty string');
  if (typeof input.description !== 'string') throw bad(where, '"description" must be a string');
  if (typeof input.handler !== 'function') throw bad(where, '"handler" must be a function');
  if (input.timeoutMs !== undefined && !(Number.isFinite(input.timeoutMs) && input.timeoutMs > 0)) {
    throw bad(where, '"timeoutMs" must be a positive number');
  }
  const inputSchema = toJsonSchema(input.inputSchema, where, 'inputSchema');
  if (inputSchema.type !== undefined && inputSchema.type !== 'object') {
    throw bad(where, '"inputSchema" must describe an object (type: "object")');
  }
  const definition: ToolDefinition = {
    ...input,
    [DEFINED]: true,
    inputSchema: { type: 'object', ...inputSchema },
    outputSchema:
      input.outputSchema === undefined ? undefined : toJsonSchema(input.outputSchema, where, 'outputSchema'),
    handler: input.handler as ToolDefinition['handler'],
  };
  return Object.freeze(definition);
}

/**
 * True for a value made by `defineTool`, or a plain object of the documented shape
 * (`name`, `description`, `inputSchema`, `handler`).
 */
export function isToolDefinitionLike(value: unknown): value is ToolDefinitionInput | ToolDefinition {
  if (typeof value !== 'object' || value === null) return false;
  if ((value as Record<symbol, unknown>)[DEFINED] === true) return true;
  const v = value as Record<string, unknown>;
  return typeof v.name === 'string' && typeof v.handler === 'function' && typeof v.inputSchema === 'object';
}

/** Normalises a module export (defined or plain) into a ToolDefinition. */
export function asToolDefinition(value: ToolDefinitionInput | ToolDefinition): ToolDefinition {
  return (value as unknown as Record<symbol, unknown>)[DEFINED] === true
    ? (value as ToolDefinition)
    : defineTool(value as ToolDefinitionInput);
}

function toJsonSchema(schema: unknown, where: string, field: string): JsonSchema {
  // A zod schema from the module's own copy of zod is no instance of ours: recognised by its shape.
  if (schema instanceof z.ZodType || (typeof schema === 'object' && schema !== null && '_zod' in schema)) {
    const json = z.toJSONSchema(schema as z.ZodType, {
      target: 'draft-2020-12',
      io: 'input',
      unrepresentable: 'any',
    });
    const { $schema: _s, ...rest } = json as JsonSchema;
    return rest;
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw bad(where, `"${field}" must be a JSON Schema object or a zod schema`);
  }
  return schema as JsonSchema;
}

function bad(where: string, problem: string): GatewayError {
  return new GatewayError('invalid_request', `Invalid ${where}: ${problem}`);
}
