import type { JsonSchema } from '../../foundation/model/tool.js';
import { isRecord } from '../../foundation/util/is-record.js';
import type { SchemaObject } from './openapi-document.js';

/** Which side of the call a schema describes: readOnly/writeOnly properties differ. */
export type SchemaDirection = 'request' | 'response';

/** Keywords holding one subschema. */
const SCHEMA_KEYS = new Set([
  'additionalProperties',
  'items',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
  'additionalItems',
]);
/** Keywords holding a list of subschemas. */
const SCHEMA_LIST_KEYS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
/** Keywords holding a map of name → subschema. */
const SCHEMA_MAP_KEYS = new Set([
  'properties',
  'patternProperties',
  'dependentSchemas',
  '$defs',
  'definitions',
]);
/** OpenAPI-only keywords that mean nothing to a JSON Schema validator or a model. */
const DROPPED_KEYS = new Set(['nullable', 'discriminator', 'xml', 'externalDocs', 'example']);

/** Beyond this depth a schema is cut to `{}`: dereferenced documents can be huge. */
const MAX_DEPTH = 48;

/**
 * Turns a dereferenced OpenAPI schema (3.0 or 3.1) into a self-contained JSON Schema (2020-12):
 * - 3.0 `nullable: true` becomes a `"null"` member of `type` (and of `enum`), or an `anyOf` with
 *   `{ type: "null" }` when there is no `type`; it is honoured in 3.1 documents too, where it is
 *   invalid but common;
 * - draft-04 boolean `exclusiveMinimum`/`exclusiveMaximum` (3.0) become their numeric forms;
 * - `example` becomes `examples`; `discriminator`, `xml`, `externalDocs` and `x-` extensions go;
 * - in a request, `readOnly` properties go (the server sets them); in a response, `writeOnly` ones;
 * - a circular reference becomes `{}` (anything), so the result is a finite tree that serialises.
 * The input is never modified: dereferenced documents share schema objects between operations.
 */
export function toJsonSchema(
  schema: SchemaObject | boolean | undefined,
  direction: SchemaDirection,
): JsonSchema {
  const converted = convert(schema ?? {}, direction, new Set(), 0);
  return typeof converted === 'boolean' ? (converted ? {} : { not: {} }) : converted;
}

function convert(
  schema: unknown,
  direction: SchemaDirection,
  ancestors: Set<object>,
  depth: number,
): JsonSchema | boolean {
  if (typeof schema === 'boolean') return schema;
  if (!isRecord(schema) || ancestors.has(schema) || depth > MAX_DEPTH) return {};
  ancestors.add(schema);
  const out: JsonSchema = {};
  const dropped = new Set<string>();
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED_KEYS.has(key) || key.startsWith('x-')) continue;
    if (SCHEMA_KEYS.has(key)) {
      out[key] = convert(value, direction, ancestors, depth + 1);
    } else if (SCHEMA_LIST_KEYS.has(key) && Array.isArray(value)) {
      out[key] = value.map((item) => convert(item, direction, ancestors, depth + 1));
    } else if (SCHEMA_MAP_KEYS.has(key) && isRecord(value)) {
      const map: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries(value)) {
        if (key === 'properties' && isRecord(sub) && hiddenIn(sub, direction)) {
          dropped.add(name);
          continue;
        }
        map[name] = convert(sub, direction, ancestors, depth + 1);
      }
      out[key] = map;
    } else {
      out[key] = cloneValue(value);
    }
  }
  ancestors.delete(schema);
  if (Array.isArray(out.required) && dropped.size > 0) {
    out.required = out.required.filter((name) => !dropped.has(String(name)));
  }
  if (schema.example !== undefined && out.examples === undefined) out.examples = [cloneValue(schema.example)];
  fixExclusiveBound(out, 'exclusiveMinimum', 'minimum');
  fixExclusiveBound(out, 'exclusiveMaximum', 'maximum');
  return schema.nullable === true ? makeNullable(out) : out;
}

function hiddenIn(property: Record<string, unknown>, direction: SchemaDirection): boolean {
  return direction === 'request' ? property.readOnly === true : property.writeOnly === true;
}

/** Draft-04 `exclusiveMinimum: true` + `minimum: n` → 2020-12 `exclusiveMinimum: n`. */
function fixExclusiveBound(schema: JsonSchema, exclusive: string, inclusive: string): void {
  if (typeof schema[exclusive] !== 'boolean') return;
  if (schema[exclusive] === true && typeof schema[inclusive] === 'number') {
    schema[exclusive] = schema[inclusive];
    delete schema[inclusive];
  } else {
    delete schema[exclusive];
  }
}

function makeNullable(schema: JsonSchema): JsonSchema {
  const type = schema.type;
  if (typeof type === 'string' || Array.isArray(type)) {
    const types = Array.isArray(type) ? type : [type];
    if (!types.includes('null')) schema.type = [...types, 'null'];
    if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
    return schema;
  }
  return { anyOf: [schema, { type: 'null' }] };
}

function cloneValue(value: unknown): unknown {
  return typeof value === 'object' && value !== null ? structuredClone(value) : value;
}
