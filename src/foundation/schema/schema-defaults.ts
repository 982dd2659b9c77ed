import type { JsonSchema } from '../model/tool.js';
import { isRecord } from '../util/is-record.js';
import { localRefPointer, nodeAt } from './schema-refs.js';

/** Deeper than any real schema; stops a recursive schema from recursing forever on odd data. */
const MAX_DEPTH = 64;

/**
 * `value` with the `default`s of `schema` filled in where a property is missing, as ajv's
 * `useDefaults` would: in `properties` (nested objects included, through local `$ref`s and
 * `allOf`) and in array `items`/`prefixItems`. Branches of `anyOf`/`oneOf` are not guessed at.
 * Returns a new value; the caller's arguments are never mutated.
 */
export function withDefaults(schema: JsonSchema, value: unknown): unknown {
  return fill(schema, value, schema, 0);
}

function fill(node: unknown, value: unknown, root: JsonSchema, depth: number): unknown {
  const schema = resolve(node, root);
  if (schema === undefined || depth > MAX_DEPTH) return value;
  let out = value;
  if (Array.isArray(schema.allOf)) {
    for (const branch of schema.allOf) out = fill(branch, out, root, depth + 1);
  }
  if (isRecord(out)) {
    const properties = isRecord(schema.properties) ? schema.properties : {};
    let copy: Record<string, unknown> | undefined;
    for (const [name, propertySchema] of Object.entries(properties)) {
      const resolved = resolve(propertySchema, root);
      const current = (copy ?? out)[name];
      let next = current;
      if (current === undefined && resolved !== undefined && 'default' in resolved)
        next = structuredClone(resolved.default);
      if (next !== undefined) next = fill(propertySchema, next, root, depth + 1);
      if (next !== current) {
        copy ??= { ...out };
        copy[name] = next;
      }
    }
    return copy ?? out;
  }
  if (Array.isArray(out)) {
    const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];
    const items = isRecord(schema.items) ? schema.items : undefined;
    return out.map((item, i) => {
      const itemSchema = prefix[i] ?? items;
      return itemSchema === undefined ? item : fill(itemSchema, item, root, depth + 1);
    });
  }
  return out;
}

/** A schema node with its local `$ref`s followed (a chain of them too, within reason). */
function resolve(node: unknown, root: JsonSchema, hops = 0): Record<string, unknown> | undefined {
  if (!isRecord(node)) return undefined;
  if (typeof node.$ref !== 'string' || hops > MAX_DEPTH) return node;
  const pointer = localRefPointer(root, node.$ref);
  const target = pointer === undefined ? undefined : nodeAt(root, pointer);
  if (!isRecord(target)) return node;
  const { $ref: _ref, ...siblings } = node;
  return { ...(resolve(target, root, hops + 1) ?? {}), ...siblings };
}
