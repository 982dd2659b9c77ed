import type { JsonSchema } from '../model/tool.js';
import { childPointer, type WarningCollector } from './conversion.js';
import { isRecord, literalType, mergeAllOf, resolveLocalRef, schemaTypes } from './schema-helpers.js';

/**
 * A Gemini `Schema` (generativelanguage v1beta): "a select subset of an OpenAPI 3.0 schema
 * object". Its fields are type, format, title, description, nullable, enum (strings), default,
 * items, minItems, maxItems, properties, required, minProperties, maxProperties, minLength,
 * maxLength, pattern, minimum, maximum, anyOf (plus example and propertyOrdering, not emitted).
 */
export type GeminiSchema = Record<string, unknown>;

/**
 * Type names are emitted in the documented form, the upper-case values of the `Type` enum of the
 * API reference (`STRING`, `OBJECT`…), which is also what the Google SDKs send. The REST API
 * accepts lower-case names too; `fromGeminiSchema` reads both.
 */
const TYPE_NAMES: Record<string, string> = {
  string: 'STRING',
  number: 'NUMBER',
  integer: 'INTEGER',
  boolean: 'BOOLEAN',
  array: 'ARRAY',
  object: 'OBJECT',
};

/** Formats the Gemini API accepts per type; others fail the request. */
const FORMATS: Record<string, readonly string[]> = {
  string: ['enum', 'date-time'],
  number: ['float', 'double'],
  integer: ['int32', 'int64'],
};

/** Keywords that only identify or structure the document: dropped silently ($defs are inlined). */
const SILENT = ['$schema', '$id', '$comment', '$anchor', '$defs', 'definitions'];

/** Keywords copied as they are, per JSON type (the common ones apply to every type). */
const COPY: Record<string, readonly string[]> = {
  common: ['title', 'description', 'default'],
  string: ['minLength', 'maxLength', 'pattern'],
  number: ['minimum', 'maximum'],
  integer: ['minimum', 'maximum'],
  array: ['minItems', 'maxItems'],
  object: ['minProperties', 'maxProperties'],
  boolean: [],
};

/**
 * Converts a JSON Schema to Gemini's OpenAPI subset. `$ref`s are inlined (a recursive one is cut,
 * with a warning); a type list becomes one type plus `nullable`, or `anyOf` over several types;
 * `const` becomes a one-value `enum`; `oneOf` becomes `anyOf`; a non-string `enum` (Gemini enums are
 * strings) moves to the description; `exclusiveMinimum`/`exclusiveMaximum` are relaxed to
 * `minimum`/`maximum`; formats Gemini refuses and every other keyword are removed. Each change is
 * reported to `warnings`, at its JSON Pointer under `base`.
 */
export function toGeminiSchema(schema: JsonSchema, warnings: WarningCollector, base = ''): GeminiSchema {
  return new GeminiWalk(schema, warnings).node(schema, base);
}

class GeminiWalk {
  readonly #inlining: string[] = [];

  constructor(
    readonly root: JsonSchema,
    readonly warnings: WarningCollector,
  ) {}

  node(raw: unknown, pointer: string): GeminiSchema {
    if (!isRecord(raw)) {
      this.warnings.add('a schema of any value has no Gemini type; sent without a type', pointer);
      return {};
    }
    if (typeof raw.$ref === 'string') return this.ref(raw, raw.$ref, pointer);
    let node = raw;
    if (Array.isArray(raw.allOf)) {
      const merged = mergeAllOf(raw, this.root);
      if (merged) node = merged;
      else this.warnings.add('removed "allOf" (its branches cannot be merged)', pointer);
    }
    const used = new Set([...SILENT, 'type', 'nullable', 'enum', 'const', 'anyOf', 'oneOf', 'allOf']);
    const out: GeminiSchema = {};
    let nullable = node.nullable === true || schemaTypes(node).includes('null');
    let literals = Array.isArray(node.enum) ? node.enum : 'const' in node ? [node.const] : undefined;
    if (literals?.includes(null)) {
      nullable = true;
      literals = literals.filter((v) => v !== null);
    }
    const branches = this.branches(node, pointer);
    if (branches.some((b) => isRecord(b) && schemaTypes(b).join() === 'null')) nullable = true;
    const live = branches.filter((b) => !(isRecord(b) && schemaTypes(b).join() === 'null'));
    const types = this.types(node, literals);
    for (const key of COPY.common ?? []) if (key in node) out[key] = node[key];
    if (types.length === 1) {
      this.typed(node, types[0] ?? '', out, pointer, literals, used);
    } else if (types.length > 1) {
      out.anyOf = types.map((type) => this.typed(node, type, {}, pointer, literals, used));
    }
    if (live.length > 0) {
      const converted = live.map((b, i) => this.node(b, childPointer(pointer, 'anyOf', i)));
      // A union that only added `null` is a nullable version of its one real branch.
      if (converted.length === 1 && types.length === 0) Object.assign(out, converted[0], pickDocs(out));
      else out.anyOf = [...(Array.isArray(out.anyOf) ? out.anyOf : []), ...converted];
    }
    if (types.length === 0 && live.length === 0) {
      this.warnings.add(
        nullable
          ? 'a schema of only null has no Gemini type'
          : 'a schema of any value has no Gemini type; sent without a type',
        pointer,
      );
    }
    if (nullable) out.nullable = true;
    for (const key of Object.keys(node)) {
      if (!used.has(key) && !(COPY.common ?? []).includes(key))
        this.warnings.add(`removed "${key}" (not supported by Gemini)`, pointer);
    }
    return ordered(out);
  }

  /** `anyOf`/`oneOf` branches (`oneOf` reported: exclusivity is lost). */
  private branches(node: JsonSchema, pointer: string): unknown[] {
    const anyOf = Array.isArray(node.anyOf) ? node.anyOf : [];
    const oneOf = Array.isArray(node.oneOf) ? node.oneOf : [];
    if (oneOf.length > 0)
      this.warnings.add('"oneOf" turned into "anyOf" (exclusivity not enforced)', pointer);
    return [...anyOf, ...oneOf];
  }

  /** The non-null JSON types of a node, inferred from its keywords when `type` is absent. */
  private types(node: JsonSchema, literals: unknown[] | undefined): string[] {
    const declared = schemaTypes(node).filter((t) => t !== 'null');
    if (declared.length > 0 || schemaTypes(node).includes('null')) return declared;
    if (literals && literals.length > 0) {
      const types = [...new Set(literals.map(literalType))];
      return types.includes('number') ? types.filter((t) => t !== 'integer') : types;
    }
    if (isRecord(node.properties)) return ['object'];
    if (isRecord(node.items)) return ['array'];
    return [];
  }

  /** Fills `out` with the keywords of one JSON type and marks them used. */
  private typed(
    node: JsonSchema,
    type: string,
    out: GeminiSchema,
    pointer: string,
    literals: unknown[] | undefined,
    used: Set<string>,
  ): GeminiSchema {
    const name = TYPE_NAMES[type];
    if (!name) {
      this.warnings.add(`removed unknown type "${type}"`, pointer);
      return out;
    }
    out.type = name;
    for (const key of COPY[type] ?? []) {
      used.add(key);
      if (key in node) out[key] = node[key];
    }
    if ('format' in node) this.format(node.format, type, out, pointer, used);
    if (type === 'number' || type === 'integer') this.exclusiveBounds(node, out, pointer, used);
    if (type === 'array') this.items(node, out, pointer, used);
    if (type === 'object') this.object(node, out, pointer, used);
    const own = literals?.filter(
      (v) => literalType(v) === type || (type === 'number' && literalType(v) === 'integer'),
    );
    if (own && own.length > 0) {
      if (type === 'string') {
        out.enum = own;
      } else {
        // Gemini enums are strings; a typed value list survives only as guidance for the model.
        const list = own.map((v) => JSON.stringify(v)).join(', ');
        out.description = `${typeof out.description === 'string' ? `${out.description} ` : ''}Allowed values: ${list}.`;
        this.warnings.add('non-string enum moved to the description (Gemini enums are strings)', pointer);
      }
    }
    return out;
  }

  private format(format: unknown, type: string, out: GeminiSchema, pointer: string, used: Set<string>): void {
    used.add('format');
    if (typeof format === 'string' && FORMATS[type]?.includes(format)) out.format = format;
    else if (type !== 'null')
      this.warnings.add(`removed "format": ${JSON.stringify(format)} (not a Gemini format)`, pointer);
  }

  private exclusiveBounds(node: JsonSchema, out: GeminiSchema, pointer: string, used: Set<string>): void {
    for (const [exclusive, inclusive] of [
      ['exclusiveMinimum', 'minimum'],
      ['exclusiveMaximum', 'maximum'],
    ] as const) {
      used.add(exclusive);
      if (typeof node[exclusive] !== 'number') continue;
      if (out[inclusive] === undefined) out[inclusive] = node[exclusive];
      this.warnings.add(`"${exclusive}" relaxed to "${inclusive}"`, pointer);
    }
  }

  private items(node: JsonSchema, out: GeminiSchema, pointer: string, used: Set<string>): void {
    used.add('items');
    if (isRecord(node.items)) out.items = this.node(node.items, childPointer(pointer, 'items'));
    else if (Array.isArray(node.items))
      this.warnings.add('removed tuple "items" (not supported by Gemini)', pointer);
    else this.warnings.add('an array without an "items" schema; element type left unspecified', pointer);
  }

  private object(node: JsonSchema, out: GeminiSchema, pointer: string, used: Set<string>): void {
    used.add('properties').add('required').add('additionalProperties');
    const source = isRecord(node.properties) ? node.properties : {};
    const names = Object.keys(source);
    if (names.length > 0) {
      out.properties = Object.fromEntries(
        names.map((name) => [name, this.node(source[name], childPointer(pointer, 'properties', name))]),
      );
    }
    // Gemini refuses `required` names that are not declared properties.
    const required = Array.isArray(node.required) ? node.required.filter((r) => typeof r === 'string') : [];
    const known = required.filter((name) => name in source);
    if (known.length > 0) out.required = known;
    if (known.length < required.length)
      this.warnings.add('removed required names without a property schema', pointer);
    // `additionalProperties: false` needs no translation: Gemini produces declared properties only,
    // and the gateway validates arguments against the original schema anyway.
    const extra = node.additionalProperties;
    if (extra !== undefined && extra !== false) {
      this.warnings.add('removed "additionalProperties" (free-form keys not supported by Gemini)', pointer);
    } else if (names.length === 0 && extra === undefined) {
      this.warnings.add('an object without "properties"; Gemini cannot describe its keys', pointer);
    }
  }

  private ref(node: JsonSchema, ref: string, pointer: string): GeminiSchema {
    const target = resolveLocalRef(this.root, ref);
    if (!isRecord(target)) {
      this.warnings.add(`removed a "$ref" that cannot be resolved locally (${ref})`, pointer);
      return {};
    }
    const { $ref: _ref, ...siblings } = node;
    if (ref === '#' || this.#inlining.includes(ref)) {
      this.warnings.add('recursive "$ref" cut (Gemini has no references)', pointer);
      const types = schemaTypes(target).filter((t) => t !== 'null');
      const description = siblings.description ?? target.description;
      return {
        ...(types.length === 1 && TYPE_NAMES[types[0] ?? ''] && { type: TYPE_NAMES[types[0] ?? ''] }),
        ...(typeof description === 'string' && { description }),
      };
    }
    this.#inlining.push(ref);
    const out = this.node({ ...target, ...siblings }, pointer);
    this.#inlining.pop();
    return out;
  }
}

/** Fields in the order of the API reference, for output a person can read. */
const ORDER = [
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'default',
  'properties',
  'required',
];

function ordered(schema: GeminiSchema): GeminiSchema {
  const out: GeminiSchema = {};
  for (const key of ORDER) if (key in schema) out[key] = schema[key];
  return Object.assign(out, schema);
}

function pickDocs(schema: GeminiSchema): GeminiSchema {
  const docs: GeminiSchema = {};
  for (const key of COPY.common ?? []) if (key in schema) docs[key] = schema[key];
  return docs;
}

/**
 * Converts a Gemini schema back to JSON Schema: type names lower-cased, `nullable` folded into the
 * type (or an `anyOf` with null), `example` into `examples`; Gemini's `format: "enum"` marker and
 * `propertyOrdering` (JSON objects keep their order) are dropped silently.
 */
export function fromGeminiSchema(schema: unknown, warnings: WarningCollector, pointer = ''): JsonSchema {
  if (!isRecord(schema)) return {};
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type') {
      if (typeof value === 'string' && value.toLowerCase() !== 'type_unspecified')
        out.type = value.toLowerCase();
    } else if (key === 'format') {
      if (value !== 'enum') out.format = value;
    } else if (key === 'items') {
      out.items = fromGeminiSchema(value, warnings, childPointer(pointer, 'items'));
    } else if (key === 'properties' && isRecord(value)) {
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [
          name,
          fromGeminiSchema(child, warnings, childPointer(pointer, 'properties', name)),
        ]),
      );
    } else if (key === 'anyOf' && Array.isArray(value)) {
      out.anyOf = value.map((child, i) =>
        fromGeminiSchema(child, warnings, childPointer(pointer, 'anyOf', i)),
      );
    } else if (key === 'example') {
      out.examples = [value];
    } else if (/^(min|max)(Items|Length|Properties)$/.test(key)) {
      // int64 fields may arrive as strings in proto JSON.
      out[key] = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
    } else if (
      ['title', 'description', 'enum', 'default', 'required', 'pattern', 'minimum', 'maximum'].includes(key)
    ) {
      out[key] = value;
    } else if (key !== 'nullable' && key !== 'propertyOrdering') {
      warnings.add(`removed "${key}" (not a Gemini schema field)`, pointer);
    }
  }
  if (schema.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (Array.isArray(out.anyOf)) out.anyOf = [...out.anyOf, { type: 'null' }];
    if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
  }
  return out;
}
