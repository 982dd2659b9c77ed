import type { JsonSchema } from '../model/tool.js';
import { DATA_KEYWORDS, SCHEMA_MAPS } from './schema-refs.js';

/**
 * A schema written for an older dialect (draft-04 to draft-07, or OpenAPI 3.0's `nullable`)
 * rewritten in JSON Schema 2020-12, the dialect of OpenAPI 3.1 documents, where the old forms are
 * errors: boolean `exclusiveMinimum`/`exclusiveMaximum` become numbers, tuple `items` arrays become
 * `prefixItems` (and `additionalItems` the new `items`), `dependencies` splits into
 * `dependentRequired` and `dependentSchemas`, and `nullable: true` adds `"null"` to the type.
 * Everything else is kept as it is. Returns a new schema.
 */
export function toDraft2020(schema: JsonSchema): JsonSchema {
  return walk(schema, false) as JsonSchema;
}

function walk(node: unknown, isMap: boolean): unknown {
  if (Array.isArray(node)) return node.map((item) => walk(item, false));
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (isMap) out[key] = walk(value, false);
    else if (DATA_KEYWORDS.has(key)) out[key] = structuredClone(value);
    else out[key] = walk(value, SCHEMA_MAPS.has(key));
  }
  return isMap ? out : upgrade(out);
}

/** One schema node's own keywords (its subschemas are already upgraded). */
function upgrade(node: Record<string, unknown>): Record<string, unknown> {
  for (const [exclusive, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof node[exclusive] !== 'boolean') continue;
    if (node[exclusive] === true && typeof node[bound] === 'number') {
      node[exclusive] = node[bound];
      delete node[bound];
    } else {
      delete node[exclusive];
    }
  }
  if (Array.isArray(node.items)) {
    node.prefixItems = node.items;
    delete node.items;
    if ('additionalItems' in node) node.items = node.additionalItems;
  }
  delete node.additionalItems;
  if (typeof node.dependencies === 'object' && node.dependencies !== null) {
    const required: Record<string, unknown> = {};
    const schemas: Record<string, unknown> = {};
    for (const [name, dependency] of Object.entries(node.dependencies as Record<string, unknown>)) {
      if (Array.isArray(dependency)) required[name] = dependency;
      else schemas[name] = dependency;
    }
    if (Object.keys(required).length > 0)
      node.dependentRequired = { ...(node.dependentRequired as object), ...required };
    if (Object.keys(schemas).length > 0)
      node.dependentSchemas = { ...(node.dependentSchemas as object), ...schemas };
    delete node.dependencies;
  }
  if ('nullable' in node) {
    if (node.nullable === true) {
      if (typeof node.type === 'string') node.type = [node.type, 'null'];
      else if (Array.isArray(node.type) && !node.type.includes('null')) node.type = [...node.type, 'null'];
    }
    delete node.nullable;
  }
  return node;
}
