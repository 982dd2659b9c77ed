import { describe, expect, it } from 'vitest';
import {
  ExpressionSyntaxError,
  evaluateExpression,
  formatReference,
  parseExpression,
  type Reference,
} from './skill-expression.js';

const values: Record<string, unknown> = {
  'inputs.city': 'Paris',
  'inputs.n': 3,
  'inputs.empty': '',
  'steps.a.result.items[1].id': 'b',
  'steps.a.result["odd key"]': 7,
};

/** Resolves references from the table above; anything else is an error. */
function lookup(ref: Reference): unknown {
  const key = formatReference(ref);
  if (!(key in values)) throw new Error(`unexpected lookup of ${key}`);
  return values[key];
}

const run = (source: string) => evaluateExpression(parseExpression(source), lookup);

describe('parseExpression', () => {
  it('parses references with dotted paths, [n] indexes and quoted keys', () => {
    const { references } = parseExpression(
      "steps.a.result.items[1].id == inputs.city && steps.a.result['odd key']",
    );
    expect(references).toEqual([
      { root: 'steps', step: 'a', path: ['items', 1, 'id'] },
      { root: 'inputs', path: ['city'] },
      { root: 'steps', step: 'a', path: ['odd key'] },
    ]);
  });

  it('accepts step ids with "-" and the whole inputs object', () => {
    expect(parseExpression('steps.fetch-data.result').references).toEqual([
      { root: 'steps', step: 'fetch-data', path: [] },
    ]);
    expect(parseExpression('inputs').references).toEqual([{ root: 'inputs', path: [] }]);
  });

  it.each([
    ['', /empty expression/],
    ['env.HOME', /unknown name; expressions can use inputs.<name> and steps.<id>.result/],
    ['steps.a.output', /a step is referenced as steps.a.result/],
    ['steps.a', /a step is referenced as steps.a.result/],
    ['inputs.items[-1]', /expected an index/],
    ['inputs.a ==', /expected a value at the end/],
    ['inputs.a == 1 == 2', /use parentheses to chain comparisons/],
    ["'unterminated", /unterminated string/],
    ['inputs.a + 1', /unexpected "\+"/],
    ['(inputs.a', /expected "\)"/],
    ['inputs.a inputs.b', /unexpected at "inputs"/],
  ])('refuses %j', (source, message) => {
    expect(() => parseExpression(source)).toThrow(ExpressionSyntaxError);
    expect(() => parseExpression(source)).toThrow(message);
  });
});

describe('evaluateExpression', () => {
  it('returns a reference value with its type', () => {
    expect(run('inputs.n')).toBe(3);
    expect(run('steps.a.result.items[1].id')).toBe('b');
    expect(run("steps.a.result['odd key']")).toBe(7);
  });

  it('evaluates literals, !, == and != (deep, omitted equals null)', () => {
    expect(run("'it\\'s'")).toBe("it's");
    expect(run('"a\\"b"')).toBe('a"b');
    expect(run('-1.5e1')).toBe(-15);
    expect(run('null')).toBeNull();
    expect(run('!inputs.empty')).toBe(true);
    expect(run('!!inputs.n')).toBe(true);
    expect(run("inputs.city == 'Paris'")).toBe(true);
    expect(run("inputs.city != 'Paris'")).toBe(false);
    expect(evaluateExpression(parseExpression('inputs.missing == null'), () => undefined)).toBe(true);
  });

  it('&& and || return operands and short-circuit', () => {
    expect(run("inputs.empty || 'UTC'")).toBe('UTC');
    expect(run('inputs.n || 9')).toBe(3);
    expect(run('inputs.empty && steps.never.result')).toBe('');
    expect(run("(inputs.empty || inputs.n) == 3 && 'yes'")).toBe('yes');
  });
});
