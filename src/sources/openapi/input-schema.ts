import type { JsonSchema } from '../../foundation/model/tool.js';
import {
  isJsonMediaType,
  type OperationInfo,
  type ParameterLocation,
  type ParameterObject,
  type RequestBodyObject,
} from './openapi-document.js';
import { BODY_ARG, type BodyBinding, type BodyEncoding, type ParameterBinding } from './operation-binding.js';
import { toJsonSchema } from './schema-conversion.js';

/** The tool's input schema and how its arguments map onto the request. */
export interface InputPlan {
  inputSchema: JsonSchema;
  parameters: ParameterBinding[];
  body?: BodyBinding;
}

/** Thrown for an operation this source cannot call (e.g. a multipart-only body); it is skipped. */
export class UnsupportedOperationError extends Error {
  override readonly name = 'UnsupportedOperationError';
}

/** Locations in the order they claim argument names: earlier locations keep the plain name. */
const LOCATIONS: readonly ParameterLocation[] = ['path', 'query', 'header', 'cookie'];

/** Header parameters OpenAPI says to ignore: the client sets them from other fields. */
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

/**
 * Builds one object schema joining every parameter and the request body of an operation.
 *
 * Argument names: a parameter keeps its own name unless an earlier location (order: path, query,
 * header, cookie) already took it, or it is named `body` while the operation has a body; then it
 * becomes `<location>_<name>` (`query_id` beside a path `id`), and `_2`, `_3`… if even that is
 * taken. Path parameters are always required; others as the document declares. The JSON (or form
 * or text) body is the argument `body`, required when the document says so.
 * `additionalProperties: false` makes a misspelt argument an input error instead of a silent no-op.
 */
export function buildInputPlan(info: OperationInfo): InputPlan {
  const requestBody = info.operation.requestBody;
  const bodyChoice = requestBody ? chooseBody(requestBody) : undefined;
  const taken = new Set<string>(bodyChoice ? [BODY_ARG] : []);
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const parameters: ParameterBinding[] = [];

  for (const location of LOCATIONS) {
    for (const p of info.parameters.filter((param) => param.in === location)) {
      if (location === 'header' && IGNORED_HEADERS.has(p.name.toLowerCase())) continue;
      const argName = claimName(p, taken);
      properties[argName] = parameterSchema(p);
      if (location === 'path' || p.required === true) required.push(argName);
      parameters.push(bindParameter(p, argName));
    }
  }

  let body: BodyBinding | undefined;
  if (requestBody && bodyChoice) {
    properties[BODY_ARG] = bodySchema(requestBody, bodyChoice);
    body = { argName: BODY_ARG, ...bodyChoice, required: requestBody.required === true };
    if (body.required) required.push(BODY_ARG);
  }

  const inputSchema: JsonSchema = { type: 'object', properties };
  if (required.length > 0) inputSchema.required = required;
  inputSchema.additionalProperties = false;
  const plan: InputPlan = { inputSchema, parameters };
  if (body) plan.body = body;
  return plan;
}

function claimName(p: ParameterObject, taken: Set<string>): string {
  let name = taken.has(p.name) ? `${p.in}_${p.name}` : p.name;
  for (let n = 2; taken.has(name); n++) name = `${p.in}_${p.name}_${n}`;
  taken.add(name);
  return name;
}

function parameterSchema(p: ParameterObject): JsonSchema {
  const mediaSchema = p.content ? Object.values(p.content)[0]?.schema : undefined;
  const schema = toJsonSchema(p.schema ?? mediaSchema, 'request');
  if (p.description) schema.description = p.description;
  if (p.deprecated === true) schema.deprecated = true;
  if (p.example !== undefined && schema.examples === undefined) schema.examples = [p.example];
  return schema;
}

function bindParameter(p: ParameterObject, argName: string): ParameterBinding {
  const style = p.style ?? (p.in === 'query' || p.in === 'cookie' ? 'form' : 'simple');
  return {
    name: p.name,
    in: p.in,
    argName,
    style,
    explode: p.explode ?? style === 'form',
    json: p.schema === undefined && p.content !== undefined,
  };
}

interface BodyChoice {
  mediaType: string;
  encoding: BodyEncoding;
}

/** JSON first, then form-urlencoded, then text; anything else (multipart, binary) is unsupported. */
function chooseBody(requestBody: RequestBodyObject): BodyChoice | undefined {
  const types = Object.keys(requestBody.content ?? {});
  if (types.length === 0) return undefined;
  const json = types.find(isJsonMediaType);
  if (json) return { mediaType: json, encoding: 'json' };
  const form = types.find((t) => t.toLowerCase().startsWith('application/x-www-form-urlencoded'));
  if (form) return { mediaType: form, encoding: 'form' };
  const text = types.find((t) => t.toLowerCase().startsWith('text/'));
  if (text) return { mediaType: text, encoding: 'text' };
  throw new UnsupportedOperationError(`request body media types not supported: ${types.join(', ')}`);
}

function bodySchema(requestBody: RequestBodyObject, choice: BodyChoice): JsonSchema {
  const schema =
    choice.encoding === 'text'
      ? { type: 'string' }
      : toJsonSchema(requestBody.content?.[choice.mediaType]?.schema, 'request');
  if (requestBody.description && schema.description === undefined) {
    schema.description = requestBody.description;
  }
  return schema;
}
