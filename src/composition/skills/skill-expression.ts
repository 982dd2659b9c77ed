import { isDeepStrictEqual } from 'node:util';

/** One step of a path into a value: a property name or an array index. */
export type PathSegment = string | number;

/** What an expression can name: the skill's inputs, or a step's result. */
export type Reference =
  | { readonly root: 'inputs'; readonly path: readonly PathSegment[] }
  | { readonly root: 'steps'; readonly step: string; readonly path: readonly PathSegment[] };

type BinaryOperator = '==' | '!=' | '&&' | '||';

/** The parsed form of an expression. */
export type ExpressionNode =
  | { readonly kind: 'literal'; readonly value: unknown }
  | { readonly kind: 'ref'; readonly ref: Reference }
  | { readonly kind: 'not'; readonly operand: ExpressionNode }
  | {
      readonly kind: 'binary';
      readonly op: BinaryOperator;
      readonly left: ExpressionNode;
      readonly right: ExpressionNode;
    };

/** A parsed `${{ … }}` expression: its source text (without the braces), tree and references. */
export interface Expression {
  readonly source: string;
  readonly node: ExpressionNode;
  readonly references: readonly Reference[];
}

/** A syntax error in an expression; the message says what was expected where. */
export class ExpressionSyntaxError extends Error {
  override readonly name = 'ExpressionSyntaxError';
}

/** Step ids and `.name` path segments: letters, digits, `_` and `-`, not starting with a digit or `-`. */
export const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_-]*$/;

type Token =
  | { type: 'ident'; text: string; at: number }
  | { type: 'number'; value: number; text: string; at: number }
  | { type: 'string'; value: string; text: string; at: number }
  | { type: 'punct'; text: string; at: number };

const PUNCTUATION = ['==', '!=', '&&', '||', '!', '(', ')', '.', '[', ']'] as const;

/**
 * Parses an expression (the text between `${{` and `}}`). The language is deliberately small:
 * references (`inputs.city`, `steps.fetch.result.items[0].id`, `inputs['odd key']`), JSON-like
 * literals (`'text'`, `"text"`, numbers, `true`, `false`, `null`), `!`, `==`, `!=`, `&&`, `||`
 * (JavaScript's short-circuit semantics, so `inputs.tz || 'UTC'` gives a fallback) and
 * parentheses. Nothing else — no calls, no arithmetic — so a skill can never run code.
 *
 * @throws ExpressionSyntaxError
 */
export function parseExpression(source: string): Expression {
  const tokens = tokenize(source);
  const references: Reference[] = [];
  let position = 0;

  const peek = (): Token | undefined => tokens[position];
  const isPunct = (text: string): boolean => {
    const token = peek();
    return token?.type === 'punct' && token.text === text;
  };
  const fail = (message: string, token = peek()): never => {
    const where = token ? `at "${token.text}" (column ${token.at + 1})` : 'at the end';
    throw new ExpressionSyntaxError(`${message} ${where} in "${source}"`);
  };
  const expect = (text: string): void => {
    if (!isPunct(text)) fail(`expected "${text}"`);
    position++;
  };

  const parseOr = (): ExpressionNode => {
    let node = parseAnd();
    while (isPunct('||')) {
      position++;
      node = { kind: 'binary', op: '||', left: node, right: parseAnd() };
    }
    return node;
  };
  const parseAnd = (): ExpressionNode => {
    let node = parseEquality();
    while (isPunct('&&')) {
      position++;
      node = { kind: 'binary', op: '&&', left: node, right: parseEquality() };
    }
    return node;
  };
  const parseEquality = (): ExpressionNode => {
    const left = parseUnary();
    for (const op of ['==', '!='] as const) {
      if (isPunct(op)) {
        position++;
        const node: ExpressionNode = { kind: 'binary', op, left, right: parseUnary() };
        // `a == b == c` reads differently to different people; ask for parentheses.
        if (isPunct('==') || isPunct('!=')) fail('use parentheses to chain comparisons');
        return node;
      }
    }
    return left;
  };
  const parseUnary = (): ExpressionNode => {
    if (isPunct('!')) {
      position++;
      return { kind: 'not', operand: parseUnary() };
    }
    return parsePrimary();
  };
  const parsePrimary = (): ExpressionNode => {
    const token = peek();
    if (!token) return fail('expected a value');
    if (token.type === 'punct' && token.text === '(') {
      position++;
      const inner = parseOr();
      expect(')');
      return inner;
    }
    if (token.type === 'number' || token.type === 'string') {
      position++;
      return { kind: 'literal', value: token.value };
    }
    if (token.type === 'ident') {
      position++;
      if (token.text === 'true') return { kind: 'literal', value: true };
      if (token.text === 'false') return { kind: 'literal', value: false };
      if (token.text === 'null') return { kind: 'literal', value: null };
      const ref = parseReference(token);
      references.push(ref);
      return { kind: 'ref', ref };
    }
    return fail('expected a value');
  };
  const parsePath = (): PathSegment[] => {
    const path: PathSegment[] = [];
    for (;;) {
      if (isPunct('.')) {
        position++;
        const name = peek();
        if (name?.type !== 'ident') return fail('expected a property name after "."');
        position++;
        path.push(name.text);
      } else if (isPunct('[')) {
        position++;
        const key = peek();
        if (key?.type === 'number' && Number.isInteger(key.value) && key.value >= 0) path.push(key.value);
        else if (key?.type === 'string') path.push(key.value);
        else return fail('expected an index (0, 1, …) or a quoted key inside "[ ]"');
        position++;
        expect(']');
      } else {
        return path;
      }
    }
  };
  const parseReference = (head: Token & { type: 'ident' }): Reference => {
    if (head.text === 'inputs') return { root: 'inputs', path: parsePath() };
    if (head.text === 'steps') {
      expect('.');
      const step = peek();
      if (step?.type !== 'ident') return fail('expected a step id after "steps."');
      position++;
      const result = tokens[position + 1];
      if (!isPunct('.') || result?.type !== 'ident' || result.text !== 'result') {
        return fail(`a step is referenced as steps.${step.text}.result`);
      }
      position += 2;
      return { root: 'steps', step: step.text, path: parsePath() };
    }
    return fail('unknown name; expressions can use inputs.<name> and steps.<id>.result', head);
  };

  if (tokens.length === 0) throw new ExpressionSyntaxError('empty expression');
  const node = parseOr();
  if (position < tokens.length) fail('unexpected');
  return { source, node, references };
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < source.length) {
    const rest = source.slice(at);
    const space = /^\s+/.exec(rest);
    if (space) {
      at += space[0].length;
      continue;
    }
    const number = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(rest);
    if (number) {
      tokens.push({ type: 'number', value: Number(number[0]), text: number[0], at });
      at += number[0].length;
      continue;
    }
    const ident = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(rest);
    if (ident) {
      tokens.push({ type: 'ident', text: ident[0], at });
      at += ident[0].length;
      continue;
    }
    const quote = rest[0];
    if (quote === '"' || quote === "'") {
      const end = closingQuote(source, at);
      if (end < 0) throw new ExpressionSyntaxError(`unterminated string (column ${at + 1}) in "${source}"`);
      const text = source.slice(at, end + 1);
      tokens.push({ type: 'string', value: unquote(text), text, at });
      at = end + 1;
      continue;
    }
    const punct = PUNCTUATION.find((p) => rest.startsWith(p));
    if (!punct) throw new ExpressionSyntaxError(`unexpected "${rest[0]}" (column ${at + 1}) in "${source}"`);
    tokens.push({ type: 'punct', text: punct, at });
    at += punct.length;
  }
  return tokens;
}

/** Index of the quote closing the string that starts at `start`, or -1. Backslash escapes. */
export function closingQuote(text: string, start: number): number {
  const quote = text[start];
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === quote) return i;
  }
  return -1;
}

/** A quoted string's value: `"…"` as JSON, `'…'` with `\'` and `\\` escapes. */
function unquote(text: string): string {
  if (text.startsWith('"')) {
    try {
      return JSON.parse(text) as string;
    } catch {
      throw new ExpressionSyntaxError(`invalid string ${text}`);
    }
  }
  return text.slice(1, -1).replace(/\\(.)/g, '$1');
}

/**
 * Evaluates an expression; `resolve` looks each reference up (and throws for one it cannot).
 * `&&` and `||` short-circuit, so `inputs.a && steps.b.result.x` never looks at the step when
 * `inputs.a` is falsy.
 */
export function evaluateExpression(expression: Expression, resolve: (ref: Reference) => unknown): unknown {
  const evaluate = (node: ExpressionNode): unknown => {
    switch (node.kind) {
      case 'literal':
        return node.value;
      case 'ref':
        return resolve(node.ref);
      case 'not':
        return !isTruthy(evaluate(node.operand));
      case 'binary': {
        const left = evaluate(node.left);
        if (node.op === '&&') return isTruthy(left) ? evaluate(node.right) : left;
        if (node.op === '||') return isTruthy(left) ? left : evaluate(node.right);
        // An omitted input (undefined) equals null, as it would after a JSON round trip.
        const equal = isDeepStrictEqual(left ?? null, evaluate(node.right) ?? null);
        return node.op === '==' ? equal : !equal;
      }
    }
  };
  return evaluate(expression.node);
}

/** Falsy: `undefined`, `null`, `false`, `0`, `""` (JavaScript's rule, minus NaN, which JSON lacks). */
export function isTruthy(value: unknown): boolean {
  return Boolean(value);
}

/** A reference as written: `inputs.city`, `steps.fetch.result.items[0]`. */
export function formatReference(ref: Reference): string {
  const head = ref.root === 'inputs' ? 'inputs' : `steps.${ref.step}.result`;
  return head + formatPath(ref.path);
}

/** `.name`, `[0]` and `['odd key']` segments. */
export function formatPath(path: readonly PathSegment[]): string {
  return path
    .map((segment) => {
      if (typeof segment === 'number') return `[${segment}]`;
      return IDENTIFIER.test(segment) ? `.${segment}` : `[${JSON.stringify(segment)}]`;
    })
    .join('');
}
