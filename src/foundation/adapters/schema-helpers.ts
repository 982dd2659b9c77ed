import type { JsonSchema } from '../model/tool.js';
import { isRecord } from '../util/is-record.js';

// Re-exported so the adapters keep importing their schema helpers from one place.
export { isRecord };

/** A deep copy of JSON data, so adapters never share structure with the catalog's tools. */
export function cloneJson<T>(value: T): T {
  return structuredClone(value);
}

/** Deep equality of JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && jsonEqual(a[k], b[k]));
  }
  return false;
}

/**
 * Resolves a local `$ref` (`#`, `#/$defs/X`, `#/definitions/X`, any JSON Pointer into the
 * document). Returns undefined for a remote ref or a pointer that leads nowhere: adapters never
 * fetch anything.
 */
export function resolveLocalRef(root: JsonSchema, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isRecord(node)) node = node[key];
    else return undefined;
  }
  return node;
}

/** The JSON types a schema node names (`type` as a string or an array); empty when absent. */
export function schemaTypes(node: JsonSchema): string[] {
  if (typeof node.type === 'string') return [node.type];
  if (Array.isArray(node.type)) return node.type.filter((t): t is string => typeof t === 'string');
  return [];
}

/** The JSON type of a literal (`enum`/`const` values), `integer` for whole numbers. */
export function literalType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Keywords that document a schema without constraining it: on conflict the first one wins. */
const ANNOTATIONS = new Set(['title', 'description', 'default', 'examples', '$comment', 'deprecated']);

/**
 * Folds `allOf` into its parent when that is lossless: every branch an object schema (a local
 * `$ref` is followed one level), properties merged key by key, `required` united, any other
 * keyword equal wherever it appears. Returns undefined when the branches conflict; callers then
 * report the loss in their own terms.
 */
export function mergeAllOf(node: JsonSchema, root: JsonSchema): JsonSchema | undefined {
  if (!Array.isArray(node.allOf)) return node;
  const { allOf, ...merged } = node;
  for (const rawBranch of allOf) {
    const branch = isRecord(rawBranch) ? follow(rawBranch, root) : undefined;
    if (!branch || Array.isArray(branch.allOf)) return undefined;
    for (const [key, value] of Object.entries(branch)) {
      if (key === 'properties') {
        if (!isRecord(value)) return undefined;
        const properties = isRecord(merged.properties) ? { ...merged.properties } : {};
        for (const [name, schema] of Object.entries(value)) {
          if (name in properties && !jsonEqual(properties[name], schema)) return undefined;
          properties[name] = schema;
        }
        merged.properties = properties;
      } else if (key === 'required') {
        if (!Array.isArray(value)) return undefined;
        const required = Array.isArray(merged.required) ? [...merged.required] : [];
        for (const name of value) if (!required.includes(name)) required.push(name);
        merged.required = required;
      } else if (!(key in merged)) {
        merged[key] = value;
      } else if (!ANNOTATIONS.has(key) && !jsonEqual(merged[key], value)) {
        return undefined;
      }
    }
  }
  return merged;
}

function follow(branch: Record<string, unknown>, root: JsonSchema): JsonSchema | undefined {
  if (typeof branch.$ref !== 'string') return branch;
  const target = resolveLocalRef(root, branch.$ref);
  if (!isRecord(target)) return undefined;
  const { $ref: _ref, ...siblings } = branch;
  return { ...target, ...siblings };
}
