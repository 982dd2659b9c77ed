import type { JsonSchema } from '../model/tool.js';

export interface TypeRenderOptions {
  /** Nesting beyond this depth renders as `unknown` (keeps huge schemas readable). Default 6. */
  maxDepth?: number;
  /** Indentation of the rendered block. */
  indent?: string;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A property key as TypeScript writes it: bare when it is an identifier, quoted otherwise. */
export function propertyKey(key: string): string {
  return IDENTIFIER.test(key) ? key : JSON.stringify(key);
}

/**
 * Renders a JSON Schema as a TypeScript type expression, for declarations a model reads. Covers
 * the keywords tool schemas use (type and type arrays, enum, const, properties/required,
 * additionalProperties, items/prefixItems, anyOf/oneOf, allOf, local `$ref`s into `$defs` or
 * `definitions`); anything else renders as `unknown`. Descriptions become JSDoc comments.
 */
export function schemaToTypeScript(schema: unknown, options: TypeRenderOptions = {}): string {
  const root = typeof schema === 'object' && schema !== null ? (schema as JsonSchema) : {};
  return render(root, root, options.indent ?? '', 0, options.maxDepth ?? 6);
}

function render(schema: unknown, root: JsonSchema, indent: string, depth: number, max: number): string {
  if (schema === true || schema === undefined) return 'unknown';
  if (schema === false) return 'never';
  if (typeof schema !== 'object' || schema === null) return 'unknown';
  const s = schema as JsonSchema;
  if (depth > max) return 'unknown';
  if (typeof s.$ref === 'string') return render(resolveRef(s.$ref, root), root, indent, depth + 1, max);
  if ('const' in s) return literal(s.const);
  if (Array.isArray(s.enum)) return s.enum.length > 0 ? s.enum.map(literal).join(' | ') : 'never';
  const union = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(union))
    return group(
      union.map((u) => render(u, root, indent, depth + 1, max)),
      ' | ',
    );
  if (Array.isArray(s.allOf))
    return group(
      s.allOf.map((u) => render(u, root, indent, depth + 1, max)),
      ' & ',
    );
  const types = Array.isArray(s.type)
    ? (s.type as string[])
    : typeof s.type === 'string'
      ? [s.type]
      : inferTypes(s);
  if (types.length === 0) return 'unknown';
  return group(
    types.map((type) => renderType(type, s, root, indent, depth, max)),
    ' | ',
  );
}

function renderType(
  type: string,
  s: JsonSchema,
  root: JsonSchema,
  indent: string,
  depth: number,
  max: number,
): string {
  switch (type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      if (Array.isArray(s.prefixItems)) {
        return `[${s.prefixItems.map((i) => render(i, root, indent, depth + 1, max)).join(', ')}]`;
      }
      const item = render(s.items, root, indent, depth + 1, max);
      return /[|&\s]/.test(item) ? `Array<${item}>` : `${item}[]`;
    }
    case 'object':
      return renderObject(s, root, indent, depth, max);
    default:
      return 'unknown';
  }
}

function renderObject(s: JsonSchema, root: JsonSchema, indent: string, depth: number, max: number): string {
  const properties = (
    typeof s.properties === 'object' && s.properties !== null ? s.properties : {}
  ) as Record<string, unknown>;
  const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
  const inner = `${indent}  `;
  const lines: string[] = [];
  for (const [key, value] of Object.entries(properties)) {
    const doc = docComment(value, inner);
    if (doc) lines.push(doc);
    const optional = required.has(key) ? '' : '?';
    lines.push(`${inner}${propertyKey(key)}${optional}: ${render(value, root, inner, depth + 1, max)};`);
  }
  const extra = s.additionalProperties;
  if (extra !== undefined && extra !== false && (Object.keys(properties).length === 0 || extra !== true)) {
    lines.push(
      `${inner}[key: string]: ${extra === true ? 'unknown' : render(extra, root, inner, depth + 1, max)};`,
    );
  } else if (extra === undefined && Object.keys(properties).length === 0) {
    return 'Record<string, unknown>';
  }
  if (lines.length === 0) return 'Record<string, never>';
  return `{\n${lines.join('\n')}\n${indent}}`;
}

/** A JSDoc block for a schema's description (and default), or '' when it has none. */
export function docComment(schema: unknown, indent: string): string {
  if (typeof schema !== 'object' || schema === null) return '';
  const s = schema as JsonSchema;
  const parts: string[] = [];
  if (typeof s.description === 'string' && s.description.trim()) parts.push(s.description.trim());
  if (s.default !== undefined) parts.push(`@default ${JSON.stringify(s.default)}`);
  if (parts.length === 0) return '';
  const text = parts.join('\n').replace(/\*\//g, '*\\/');
  const lines = text.split('\n');
  if (lines.length === 1) return `${indent}/** ${lines[0]} */`;
  return `${indent}/**\n${lines.map((l) => `${indent} * ${l}`).join('\n')}\n${indent} */`;
}

function inferTypes(s: JsonSchema): string[] {
  if (s.properties !== undefined || s.additionalProperties !== undefined) return ['object'];
  if (s.items !== undefined || s.prefixItems !== undefined) return ['array'];
  return [];
}

function resolveRef(ref: string, root: JsonSchema): unknown {
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  if (!match) return undefined;
  const defs = root[match[1] as string] as Record<string, unknown> | undefined;
  return defs?.[
    decodeURIComponent(match[2] as string)
      .replace(/~1/g, '/')
      .replace(/~0/g, '~')
  ];
}

function literal(value: unknown): string {
  return value === undefined ? 'undefined' : JSON.stringify(value);
}

function group(parts: string[], separator: string): string {
  const unique = [...new Set(parts)];
  if (unique.length === 1) return unique[0] as string;
  return unique.map((p) => (p.includes(' | ') || p.includes(' & ') ? `(${p})` : p)).join(separator);
}
