import type { JsonSchema } from '../model/tool.js';
import { childPointer, type WarningCollector } from './conversion.js';
import { isRecord, literalType, mergeAllOf, resolveLocalRef, schemaTypes } from './schema-helpers.js';

/**
 * String formats OpenAI's strict mode accepts (Structured Outputs guide, "Supported properties");
 * any other value is rejected by the API ("'uri' is not a valid format").
 */
export const OPENAI_STRICT_FORMATS: ReadonlySet<string> = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
]);

/** Documented limits of a strict schema (Structured Outputs guide, "Objects have limitations"). */
const MAX_NESTING = 10;
const MAX_PROPERTIES = 5000;

/**
 * Keywords kept as they are: the Structured Outputs guide lists them as supported (`pattern`,
 * `format`; numeric bounds and `multipleOf`; `minItems`/`maxItems`; `enum`), plus the annotations
 * every strict schema generator emits (`title`, `description`).
 */
const KEEP = new Set([
  'title',
  'description',
  'enum',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
]);
/** Identity and comment keywords: meaningless to the model, removed without a warning. */
const SILENT = new Set(['$schema', '$id', '$comment', '$anchor']);
/** Keywords this walk rewrites itself. */
const HANDLED = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'anyOf',
  'oneOf',
  'allOf',
  'const',
  'format',
  '$ref',
  '$defs',
  'definitions',
]);
const PRIMITIVES = new Set(['string', 'number', 'integer', 'boolean']);

/** The outcome of a strict rewrite: the schema, or why strict mode cannot express the input. */
export interface StrictSchemaResult {
  schema: JsonSchema | undefined;
  /** One line per obstacle (`/pointer: reason`); empty when `schema` is set. */
  blockers: string[];
}

/**
 * Rewrites an object-rooted JSON Schema for OpenAI's strict mode (Structured Outputs): every
 * object closed (`additionalProperties: false`) with all its properties in `required`, optional
 * ones made nullable so the model can still say "not given" (`null`); `oneOf` becomes `anyOf`;
 * `const` becomes a one-value `enum`; keywords outside the supported subset are removed, each
 * reported to `warnings`. `$defs`/`definitions` and `$ref`s into them are kept (strict mode
 * supports them, recursion included); a `$ref` with sibling keywords is inlined, as OpenAI's own
 * SDKs do, because strict mode refuses such a `$ref`.
 *
 * Some schemas have no strict equivalent: a value of any type, an open map, an array without
 * `items`, a tuple, an `allOf` that does not merge, or a schema past the documented size limits.
 * Those come back as `blockers`, and the caller falls back to non-strict mode.
 */
export function toOpenAIStrictSchema(schema: JsonSchema, warnings: WarningCollector): StrictSchemaResult {
  const walk = new StrictWalk(schema, warnings);
  const out = walk.node(schema, '', true);
  const [depth, properties] = measure(out);
  if (depth > MAX_NESTING)
    walk.block('', `objects nest ${depth} levels deep (strict mode allows ${MAX_NESTING})`);
  if (properties > MAX_PROPERTIES)
    walk.block('', `${properties} object properties (strict mode allows ${MAX_PROPERTIES})`);
  return walk.blockers.length > 0
    ? { schema: undefined, blockers: walk.blockers }
    : { schema: out, blockers: [] };
}

class StrictWalk {
  readonly blockers: string[] = [];
  /** `$ref`s being inlined, outermost first: meeting one again means recursion. */
  readonly #inlining: string[] = [];

  constructor(
    readonly root: JsonSchema,
    readonly warnings: WarningCollector,
  ) {}

  block(pointer: string, reason: string): void {
    this.blockers.push(`${pointer || '/'}: ${reason}`);
  }

  node(raw: unknown, pointer: string, isRoot = false): JsonSchema {
    if (!isRecord(raw)) {
      this.block(pointer, raw === false ? 'schema `false` accepts nothing' : 'schema accepts any JSON value');
      return {};
    }
    if (typeof raw.$ref === 'string') return this.ref(raw, raw.$ref, pointer);
    const node = Array.isArray(raw.allOf) ? mergeAllOf(raw, this.root) : raw;
    if (!node) {
      this.block(pointer, '"allOf" whose branches cannot be merged into one schema');
      return {};
    }
    const types = this.types(node, pointer);
    const out: JsonSchema = types.length === 0 ? {} : { type: types.length === 1 ? types[0] : types };
    for (const [key, value] of Object.entries(node)) {
      if (KEEP.has(key)) out[key] = value;
      else if (key === 'const' && node.enum === undefined) out.enum = [value];
      else if (key === 'format') this.format(value, out, pointer);
      else if (key === 'anyOf' || key === 'oneOf') this.union(key, value, out, pointer);
      else if (key === '$defs' || key === 'definitions') this.defs(key, value, out, pointer);
      else if (!HANDLED.has(key) && !SILENT.has(key))
        this.warnings.add(`removed "${key}" (not supported in strict mode)`, pointer);
    }
    // A literal set (`enum`) already fixes the shape; structure keywords only matter otherwise.
    if (out.enum === undefined) {
      if (types.includes('object')) this.object(node, out, pointer, isRoot);
      if (types.includes('array')) this.array(node, out, pointer);
    }
    // Definitions last, after the shape they serve, for output a person can read.
    const { $defs, definitions, ...shape } = out;
    return {
      ...shape,
      ...($defs === undefined ? {} : { $defs }),
      ...(definitions === undefined ? {} : { definitions }),
    };
  }

  /** The node's types; inferred from its keywords when `type` is absent (strict mode needs one). */
  private types(node: JsonSchema, pointer: string): string[] {
    const declared = schemaTypes(node);
    if (declared.length > 0) return declared;
    const literals = Array.isArray(node.enum) ? node.enum : 'const' in node ? [node.const] : undefined;
    if (literals) {
      const types = [...new Set(literals.map(literalType))];
      return types.includes('number') ? types.filter((t) => t !== 'integer') : types;
    }
    if (isRecord(node.properties) || 'additionalProperties' in node || Array.isArray(node.required))
      return ['object'];
    if ('items' in node || 'prefixItems' in node) return ['array'];
    if (!Array.isArray(node.anyOf) && !Array.isArray(node.oneOf))
      this.block(pointer, 'no "type": accepts any JSON value');
    return [];
  }

  private object(node: JsonSchema, out: JsonSchema, pointer: string, isRoot: boolean): void {
    const extra = node.additionalProperties;
    if (extra === true || isRecord(extra)) {
      this.block(pointer, 'an open object ("additionalProperties"): a map with free keys');
      return;
    }
    if (extra === undefined && !isRecord(node.properties) && !isRoot) {
      this.block(pointer, 'an object without "properties": accepts any keys');
      return;
    }
    const source = isRecord(node.properties) ? node.properties : {};
    const required = Array.isArray(node.required) ? node.required.filter((r) => typeof r === 'string') : [];
    const properties: Record<string, unknown> = {};
    for (const [name, child] of Object.entries(source)) {
      const at = childPointer(pointer, 'properties', name);
      const converted = this.node(child, at);
      if (required.includes(name)) {
        properties[name] = converted;
      } else {
        properties[name] = nullable(converted);
        this.warnings.add('optional property made required and nullable (null means "not given")', at);
      }
    }
    const orphans = required.filter((name) => !(name in source));
    if (orphans.length > 0)
      this.warnings.add(`removed required names without a property schema (${orphans.join(', ')})`, pointer);
    out.properties = properties;
    out.required = Object.keys(properties);
    out.additionalProperties = false;
  }

  private array(node: JsonSchema, out: JsonSchema, pointer: string): void {
    if (Array.isArray(node.items) || 'prefixItems' in node) {
      this.block(pointer, 'a tuple ("prefixItems" or an "items" array)');
    } else if (isRecord(node.items)) {
      out.items = this.node(node.items, childPointer(pointer, 'items'));
    } else {
      this.block(pointer, 'an array without an "items" schema: accepts any elements');
    }
  }

  private format(value: unknown, out: JsonSchema, pointer: string): void {
    if (typeof value === 'string' && OPENAI_STRICT_FORMATS.has(value)) out.format = value;
    else this.warnings.add(`removed "format": ${JSON.stringify(value)} (not a strict-mode format)`, pointer);
  }

  private union(key: 'anyOf' | 'oneOf', value: unknown, out: JsonSchema, pointer: string): void {
    if (!Array.isArray(value)) return;
    if (key === 'oneOf') this.warnings.add('"oneOf" turned into "anyOf" (exclusivity not enforced)', pointer);
    const branches = value.map((branch, i) => this.node(branch, childPointer(pointer, key, i)));
    out.anyOf = [...(Array.isArray(out.anyOf) ? out.anyOf : []), ...branches];
  }

  private defs(key: string, value: unknown, out: JsonSchema, pointer: string): void {
    if (!isRecord(value)) return;
    const converted: Record<string, unknown> = {};
    for (const [name, def] of Object.entries(value)) {
      // Inside a definition, a `$ref` back to it is recursion, not something to inline.
      const self = childPointer('#', key, name);
      this.#inlining.push(self);
      converted[name] = this.node(def, childPointer(pointer, key, name));
      this.#inlining.pop();
    }
    out[key] = converted;
  }

  private ref(node: JsonSchema, ref: string, pointer: string): JsonSchema {
    const siblings = Object.keys(node).filter((key) => key !== '$ref' && !SILENT.has(key));
    const keepable = ref === '#' || /^#\/(\$defs|definitions)\/[^/]+$/.test(ref);
    const target = resolveLocalRef(this.root, ref);
    if (!isRecord(target)) {
      this.block(pointer, `a "$ref" that does not lead to a local schema object (${ref})`);
      return {};
    }
    if (keepable && siblings.length === 0) return { $ref: ref };
    if (ref === '#' || this.#inlining.includes(ref)) {
      if (!keepable) {
        this.block(pointer, `a recursive "$ref" outside "$defs" (${ref})`);
        return {};
      }
      this.warnings.add(
        `removed ${siblings.map((k) => `"${k}"`).join(', ')} next to a recursive "$ref"`,
        pointer,
      );
      return { $ref: ref };
    }
    // Siblings win over the target's own keywords (a property's description over the type's).
    const merged: JsonSchema = { ...target, ...node };
    delete merged.$ref;
    this.#inlining.push(ref);
    const out = this.node(merged, pointer);
    this.#inlining.pop();
    return out;
  }
}

/** The schema, also accepting `null`: a type list for a plain primitive, else `anyOf` with null. */
export function nullable(schema: JsonSchema): JsonSchema {
  if (acceptsNull(schema)) return schema;
  const types = schemaTypes(schema);
  const plain = types.length > 0 && types.every((t) => PRIMITIVES.has(t)) && schema.enum === undefined;
  if (plain) return { ...schema, type: [...types, 'null'] };
  if (Array.isArray(schema.anyOf) && types.length === 0)
    return { ...schema, anyOf: [...schema.anyOf, { type: 'null' }] };
  // Documentation stays on the outside, where the model reads the property.
  const { title, description, ...rest } = schema;
  return {
    ...(title === undefined ? {} : { title }),
    ...(description === undefined ? {} : { description }),
    anyOf: [rest, { type: 'null' }],
  };
}

function acceptsNull(schema: JsonSchema): boolean {
  if (schemaTypes(schema).includes('null')) return true;
  if (Array.isArray(schema.enum)) return schema.enum.includes(null);
  return (
    Array.isArray(schema.anyOf) && schema.anyOf.some((branch) => isRecord(branch) && acceptsNull(branch))
  );
}

/** Object nesting depth and total property count of a schema tree (refs not followed). */
function measure(schema: unknown, depth = 0): [number, number] {
  if (!isRecord(schema)) return [depth, 0];
  let deepest = depth;
  let count = 0;
  const visit = (child: unknown, nested: number) => {
    const [d, c] = measure(child, nested);
    deepest = Math.max(deepest, d);
    count += c;
  };
  if (isRecord(schema.properties)) {
    count += Object.keys(schema.properties).length;
    for (const child of Object.values(schema.properties)) visit(child, depth + 1);
  }
  if (isRecord(schema.items)) visit(schema.items, depth);
  for (const key of ['anyOf', '$defs', 'definitions'] as const) {
    const children = schema[key];
    for (const child of Array.isArray(children)
      ? children
      : isRecord(children)
        ? Object.values(children)
        : [])
      visit(child, depth);
  }
  return [deepest, count];
}
