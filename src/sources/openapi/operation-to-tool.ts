import { normalizeTags } from '../../foundation/model/tags.js';
import type { JsonSchema, Tool, ToolAnnotations } from '../../foundation/model/tool.js';
import { formatToolId } from '../../foundation/model/tool-id.js';
import { buildInputPlan } from './input-schema.js';
import { type HttpMethod, isJsonMediaType, type OperationInfo } from './openapi-document.js';
import type { OperationBinding } from './operation-binding.js';
import { toJsonSchema } from './schema-conversion.js';

/** A generated tool and the request plan its backend follows. */
export interface OperationTool {
  tool: Tool;
  binding: OperationBinding;
}

export interface OperationToolContext {
  sourceId: string;
  namespace: string;
  /** The source's request time limit; the pipeline is told so it does not cut the call earlier. */
  timeoutMs: number;
}

const MAX_NAME_LENGTH = 128;

/**
 * The tool name of an operation: its operationId with every run of characters outside
 * `[A-Za-z0-9_-]` replaced by `_`, or, without a usable operationId, `method_path`
 * (`GET /pets/{petId}` → `get_pets_petId`). Uniqueness within a source is the caller's job.
 */
export function operationToolName(info: Pick<OperationInfo, 'method' | 'path' | 'operation'>): string {
  const fromId = sanitize(info.operation.operationId ?? '');
  return fromId || sanitize(`${info.method}_${info.path}`) || info.method;
}

function sanitize(text: string): string {
  return text
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '')
    .slice(0, MAX_NAME_LENGTH);
}

/**
 * Turns one OpenAPI operation into a canonical tool named `name` (see `operationToolName`).
 * Throws `UnsupportedOperationError` for an operation that cannot be called (see input-schema).
 */
export function operationToTool(info: OperationInfo, name: string, ctx: OperationToolContext): OperationTool {
  const { operation, method, path } = info;
  const plan = buildInputPlan(info);
  const summary = operation.summary?.trim();
  const details = operation.description?.trim();
  let description = [summary, details].filter(Boolean).join('\n\n') || `${method.toUpperCase()} ${path}`;
  if (operation.deprecated === true) description = `Deprecated. ${description}`;

  const tool: Tool = {
    id: formatToolId({ namespace: ctx.namespace, name }),
    namespace: ctx.namespace,
    name,
    description,
    inputSchema: plan.inputSchema,
    annotations: annotationsFor(method),
    tags: normalizeTags(operation.tags),
    metadata: {
      extra: {
        timeoutMs: ctx.timeoutMs,
        http: { method: method.toUpperCase(), path },
        ...(operation.operationId === undefined ? {} : { operationId: operation.operationId }),
      },
    },
    examples: [],
    origin: {
      sourceId: ctx.sourceId,
      kind: 'openapi',
      originalName: operation.operationId ?? `${method.toUpperCase()} ${path}`,
    },
  };
  if (summary) tool.title = summary;
  const outputSchema = successSchema(info);
  if (outputSchema) tool.outputSchema = outputSchema;

  const binding: OperationBinding = { method, path, parameters: plan.parameters };
  if (plan.body) binding.body = plan.body;
  return { tool, binding };
}

/**
 * HTTP semantics as MCP hints: safe methods are read-only and idempotent; PUT and DELETE are
 * idempotent; DELETE is destructive. Every call reaches an outside service, hence open-world.
 */
export function annotationsFor(method: HttpMethod): ToolAnnotations {
  const safe = method === 'get' || method === 'head' || method === 'options' || method === 'trace';
  const annotations: ToolAnnotations = {
    readOnlyHint: safe,
    idempotentHint: safe || method === 'put' || method === 'delete',
    openWorldHint: true,
  };
  if (!safe) annotations.destructiveHint = method === 'delete';
  return annotations;
}

/**
 * The output schema: the JSON schema of the first 2xx response (200 before 201…, exact codes
 * before `2XX`) when it describes an object. Arrays and scalars get none: the backend wraps them
 * as `{ result }`, and an output schema must describe an object.
 */
function successSchema(info: OperationInfo): JsonSchema | undefined {
  const responses = info.operation.responses ?? {};
  const codes = Object.keys(responses)
    .filter((code) => /^2(\d\d|XX)$/i.test(code))
    .sort((a, b) => a.localeCompare(b));
  for (const code of codes) {
    const content = responses[code]?.content ?? {};
    const mediaType = Object.keys(content).find(isJsonMediaType);
    if (!mediaType) continue;
    const schema = toJsonSchema(content[mediaType]?.schema, 'response');
    const describesObject =
      schema.type === 'object' || (schema.type === undefined && typeof schema.properties === 'object');
    if (!describesObject) return undefined;
    return { ...schema, type: 'object' };
  }
  return undefined;
}
