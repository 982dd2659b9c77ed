import {
  closingQuote,
  type Expression,
  ExpressionSyntaxError,
  evaluateExpression,
  parseExpression,
  type Reference,
} from './skill-expression.js';

/**
 * A value of a skill's config (`args`, `output`) with its `${{ … }}` expressions parsed once, at
 * load time. Subtrees without expressions collapse to `literal`, so resolving them is a copy.
 */
export type Template =
  | { readonly kind: 'literal'; readonly value: unknown }
  /** A string that is exactly one expression: it resolves to the expression's value, type kept. */
  | { readonly kind: 'expression'; readonly expression: Expression }
  /** A string with expressions inside text: resolves to a string. */
  | { readonly kind: 'text'; readonly parts: readonly (string | Expression)[] }
  | { readonly kind: 'object'; readonly entries: readonly (readonly [string, Template])[] }
  | { readonly kind: 'array'; readonly items: readonly Template[] };

/** A template that cannot be compiled; `pointer` is the JSON Pointer of the bad string. */
export class TemplateError extends Error {
  override readonly name = 'TemplateError';
  constructor(
    message: string,
    readonly pointer: string,
  ) {
    super(message);
  }
}

/** One expression inside a template, with the JSON Pointer of the value that holds it. */
export interface TemplateExpression {
  pointer: string;
  expression: Expression;
}

const OPEN = '${{';
const ESCAPED_OPEN = '$${{';

/**
 * Compiles a config value: every string is scanned for `${{ … }}`; `$${{` stands for a literal
 * `${{`. Object keys are never templates.
 *
 * @throws TemplateError naming the JSON Pointer of the first bad string
 */
export function compileTemplate(value: unknown, pointer = ''): Template {
  if (typeof value === 'string') {
    const parts = splitText(value, pointer);
    if (parts.length === 1 && typeof parts[0] !== 'string' && parts[0] !== undefined) {
      return { kind: 'expression', expression: parts[0] };
    }
    if (parts.every((part) => typeof part === 'string')) return { kind: 'literal', value: parts.join('') };
    return { kind: 'text', parts };
  }
  if (Array.isArray(value)) {
    const items = value.map((item, index) => compileTemplate(item, `${pointer}/${index}`));
    return items.every((item) => item.kind === 'literal')
      ? { kind: 'literal', value: items.map((item) => (item as { value: unknown }).value) }
      : { kind: 'array', items };
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).map(
      ([key, item]) => [key, compileTemplate(item, `${pointer}/${escapePointer(key)}`)] as const,
    );
    return entries.every(([, item]) => item.kind === 'literal')
      ? {
          kind: 'literal',
          value: Object.fromEntries(entries.map(([key, item]) => [key, (item as { value: unknown }).value])),
        }
      : { kind: 'object', entries };
  }
  return { kind: 'literal', value };
}

/** Splits a string into text and parsed expressions. */
function splitText(text: string, pointer: string): (string | Expression)[] {
  const parts: (string | Expression)[] = [];
  let buffer = '';
  let at = 0;
  while (at < text.length) {
    if (text.startsWith(ESCAPED_OPEN, at)) {
      buffer += OPEN;
      at += ESCAPED_OPEN.length;
      continue;
    }
    if (!text.startsWith(OPEN, at)) {
      buffer += text[at];
      at++;
      continue;
    }
    const end = closingBraces(text, at + OPEN.length);
    if (end < 0) throw new TemplateError(`"${OPEN}" without a closing "}}"`, pointer);
    const source = text.slice(at + OPEN.length, end).trim();
    let expression: Expression;
    try {
      expression = parseExpression(source);
    } catch (error) {
      if (error instanceof ExpressionSyntaxError) throw new TemplateError(error.message, pointer);
      throw error;
    }
    if (buffer) parts.push(buffer);
    buffer = '';
    parts.push(expression);
    at = end + 2;
  }
  if (buffer || parts.length === 0) parts.push(buffer);
  return parts;
}

/** Index of the `}}` closing an expression that starts at `start` (quotes skipped), or -1. */
function closingBraces(text: string, start: number): number {
  for (let i = start; i < text.length; i++) {
    const char = text[i];
    if (char === '"' || char === "'") {
      const end = closingQuote(text, i);
      if (end < 0) return -1;
      i = end;
    } else if (char === '}' && text[i + 1] === '}') {
      return i;
    }
  }
  return -1;
}

/** Every expression of a template, in document order, with where it sits. */
export function templateExpressions(template: Template, pointer = ''): TemplateExpression[] {
  switch (template.kind) {
    case 'literal':
      return [];
    case 'expression':
      return [{ pointer, expression: template.expression }];
    case 'text':
      return template.parts
        .filter((part): part is Expression => typeof part !== 'string')
        .map((expression) => ({ pointer, expression }));
    case 'object':
      return template.entries.flatMap(([key, item]) =>
        templateExpressions(item, `${pointer}/${escapePointer(key)}`),
      );
    case 'array':
      return template.items.flatMap((item, index) => templateExpressions(item, `${pointer}/${index}`));
  }
}

/** Looks a reference up for the expression that uses it; throws when it cannot be resolved. */
export type ReferenceResolver = (ref: Reference, expression: Expression) => unknown;

/**
 * Resolves a template to a value. An exact expression keeps its value's type; expressions inside
 * text are written as text (strings as they are, `null`/omitted as nothing, objects as JSON). An
 * exact expression that resolves to `undefined` (an omitted optional input) leaves its key out of
 * an object, and is `null` in an array.
 */
export function resolveTemplate(template: Template, resolve: ReferenceResolver): unknown {
  switch (template.kind) {
    case 'literal':
      return copy(template.value);
    case 'expression':
      return copy(evaluate(template.expression, resolve));
    case 'text':
      return template.parts
        .map((part) => (typeof part === 'string' ? part : asText(evaluate(part, resolve))))
        .join('');
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, item] of template.entries) {
        const value = resolveTemplate(item, resolve);
        // defineProperty: a `__proto__` key stays data.
        if (value !== undefined)
          Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    case 'array':
      return template.items.map((item) => resolveTemplate(item, resolve) ?? null);
  }
}

/** What a partial resolution produced: the value without the parts it could not resolve yet. */
export interface PartialResolution {
  value: unknown;
  /** JSON Pointers of the parts left out (keys omitted, array items `null`), with their references. */
  deferred: { pointer: string; references: Reference[] }[];
}

/**
 * Resolves what can be resolved now (`canResolve`) and leaves the rest out, reporting where:
 * used by `plan_skill` to validate a step's literal arguments before the steps they depend on ran.
 */
export function resolvePartially(
  template: Template,
  canResolve: (ref: Reference) => boolean,
  resolve: ReferenceResolver,
  pointer = '',
): PartialResolution {
  const deferred: PartialResolution['deferred'] = [];
  const walk = (node: Template, at: string): unknown => {
    if (node.kind === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, item] of node.entries) {
        const value = walk(item, `${at}/${escapePointer(key)}`);
        if (value !== undefined)
          Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    if (node.kind === 'array') return node.items.map((item, index) => walk(item, `${at}/${index}`) ?? null);
    const references = templateExpressions(node).flatMap((e) => e.expression.references);
    const pending = references.filter((ref) => !canResolve(ref));
    if (pending.length > 0) {
      deferred.push({ pointer: at, references: pending });
      return undefined;
    }
    return resolveTemplate(node, resolve);
  };
  return { value: walk(template, pointer), deferred };
}

function evaluate(expression: Expression, resolve: ReferenceResolver): unknown {
  return evaluateExpression(expression, (ref) => resolve(ref, expression));
}

/** How a value reads inside text. */
export function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** A deep copy, so a tool that changes its arguments cannot change the config or another step's result. */
function copy(value: unknown): unknown {
  return typeof value === 'object' && value !== null ? structuredClone(value) : value;
}

/** A key as a JSON Pointer segment (RFC 6901). */
export function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
