import type { JsonSchema } from '../model/tool.js';

/**
 * Keywords whose values are data, not schemas: a `$ref` inside them is a string like any other and
 * must never be rewritten.
 */
export const DATA_KEYWORDS: ReadonlySet<string> = new Set([
  'const',
  'enum',
  'default',
  'examples',
  'example',
]);

/**
 * Keywords whose value is a map from arbitrary names to schemas: the names are not keywords, so a
 * property called `$ref` or `const` is a schema there, not a reference or data.
 */
export const SCHEMA_MAPS: ReadonlySet<string> = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'dependencies',
]);

/**
 * The JSON Pointer (without `#`, `""` for the root) a local `$ref` of `root` names: `#` and
 * `#/…` pointers that lead somewhere, and plain-name fragments (`#pin`) naming an `$anchor`.
 * Undefined for a pointer that leads nowhere and for any reference into another document: the
 * gateway never fetches a schema.
 */
export function localRefPointer(root: JsonSchema, ref: string): string | undefined {
  if (ref === '#') return '';
  if (ref.startsWith('#/')) {
    const pointer = decodeURIComponent(ref.slice(1));
    return nodeAt(root, pointer) === undefined ? undefined : pointer;
  }
  if (/^#[A-Za-z_][-A-Za-z0-9._]*$/.test(ref)) return anchors(root).get(ref.slice(1));
  return undefined;
}

/** The value a JSON Pointer (without `#`) leads to in `root`, or undefined. */
export function nodeAt(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  let node: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) node = node[Number(key)];
    else if (typeof node === 'object' && node !== null) node = (node as Record<string, unknown>)[key];
    else return undefined;
    if (node === undefined) return undefined;
  }
  return node;
}

/** A JSON Pointer segment for a key (`~` → `~0`, `/` → `~1`). */
export function pointerSegment(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * A deep copy of `schema` where every `$ref` (in schema positions only: never inside `const`,
 * `enum`, `default` or examples) is replaced by `map(ref)`, or removed when `map` answers
 * undefined. The tool of every place a schema is moved to: a reference is only meaningful
 * relative to the document it sits in.
 */
export function mapRefs(schema: JsonSchema, map: (ref: string) => string | undefined): JsonSchema {
  const walk = (node: unknown, isMap: boolean): unknown => {
    if (Array.isArray(node)) return node.map((item) => walk(item, false));
    if (typeof node !== 'object' || node === null) return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (isMap) out[key] = walk(value, false);
      else if (key === '$ref' && typeof value === 'string') {
        const mapped = map(value);
        if (mapped !== undefined) out[key] = mapped;
      } else if (DATA_KEYWORDS.has(key)) out[key] = structuredClone(value);
      else out[key] = walk(value, SCHEMA_MAPS.has(key));
    }
    return out;
  };
  return walk(schema, false) as JsonSchema;
}

/** Every `$ref` value of a schema (schema positions only), for checks that each one resolves. */
export function refsOf(schema: unknown): string[] {
  const refs: string[] = [];
  if (typeof schema === 'object' && schema !== null && !Array.isArray(schema)) {
    mapRefs(schema as JsonSchema, (ref) => {
      refs.push(ref);
      return ref;
    });
  }
  return refs;
}

/** `$anchor` name → pointer of the schema that declares it. */
function anchors(root: JsonSchema): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (node: unknown, pointer: string, isMap: boolean): void => {
    if (Array.isArray(node)) {
      for (const [i, item] of node.entries()) walk(item, `${pointer}/${i}`, false);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    const record = node as Record<string, unknown>;
    if (!isMap && typeof record.$anchor === 'string' && !found.has(record.$anchor))
      found.set(record.$anchor, pointer);
    for (const [key, value] of Object.entries(record)) {
      if (!isMap && DATA_KEYWORDS.has(key)) continue;
      walk(value, `${pointer}/${pointerSegment(key)}`, !isMap && SCHEMA_MAPS.has(key));
    }
  };
  walk(root, '', false);
  return found;
}

/**
 * `moved` (a rewrite of `original`: a root union flattened, a root `$ref` followed) with every
 * reference that led somewhere in `original` but no longer leads to the same schema in `moved`
 * replaced by a copy of its original target. References that still hold stay references
 * (recursion included); a reference met again while its own target is being inlined is
 * recursion through a moved part and is dropped rather than expanded forever.
 */
export function inlineMovedRefs(original: JsonSchema, moved: JsonSchema): JsonSchema {
  const stillHolds = (ref: string): boolean => {
    // The root stays the root, whatever was rewritten in it: recursion through `#` stays a reference.
    if (ref === '#') return true;
    const before = localRefPointer(original, ref);
    const after = localRefPointer(moved, ref);
    return (
      after !== undefined &&
      before !== undefined &&
      JSON.stringify(nodeAt(original, before)) === JSON.stringify(nodeAt(moved, after))
    );
  };
  const walk = (node: unknown, isMap: boolean, inlining: readonly string[]): unknown => {
    if (Array.isArray(node)) return node.map((item) => walk(item, false, inlining));
    if (typeof node !== 'object' || node === null) return node;
    const record = node as Record<string, unknown>;
    const ref = record.$ref;
    // A reference that never resolved is left as the source wrote it: nothing moved under it.
    const pointer = typeof ref === 'string' ? localRefPointer(original, ref) : undefined;
    if (!isMap && typeof ref === 'string' && pointer !== undefined && !stillHolds(ref)) {
      const { $ref: _ref, ...siblings } = record;
      const target = nodeAt(original, pointer);
      if (inlining.includes(ref) || typeof target !== 'object' || target === null)
        return walk(siblings, false, inlining);
      return walk({ ...structuredClone(target), ...siblings }, false, [...inlining, ref]);
    }
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(record)) {
      out[key] =
        !isMap && DATA_KEYWORDS.has(key)
          ? structuredClone(value)
          : walk(value, !isMap && SCHEMA_MAPS.has(key), inlining);
    }
    return out;
  };
  return walk(moved, false, []) as JsonSchema;
}
