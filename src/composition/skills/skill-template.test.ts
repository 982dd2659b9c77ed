// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${{ … }}` is the skill expression syntax under test, not a JS template.
import { describe, expect, it } from 'vitest';
import { formatReference, type Reference } from './skill-expression.js';
import {
  compileTemplate,
  resolvePartially,
  resolveTemplate,
  TemplateError,
  templateExpressions,
} from './skill-template.js';

const context: Record<string, unknown> = {
  'inputs.n': 42,
  'inputs.flag': false,
  'inputs.city': 'Paris',
  'inputs.tags': ['a', 'b'],
  'inputs.omitted': undefined,
  'steps.s.result': { iso: '2024-01-01T00:00:00Z', list: [{ id: 7 }] },
  'steps.s.result.list[0].id': 7,
  'steps.s.result.iso': '2024-01-01T00:00:00Z',
};
const resolve = (ref: Reference) => context[formatReference(ref)];

describe('compileTemplate + resolveTemplate', () => {
  it('a value that is exactly one expression keeps its type', () => {
    const template = compileTemplate({
      n: '${{ inputs.n }}',
      flag: '${{ inputs.flag }}',
      tags: '${{ inputs.tags }}',
      whole: '${{ steps.s.result }}',
      id: '${{ steps.s.result.list[0].id }}',
    });
    expect(resolveTemplate(template, resolve)).toEqual({
      n: 42,
      flag: false,
      tags: ['a', 'b'],
      whole: { iso: '2024-01-01T00:00:00Z', list: [{ id: 7 }] },
      id: 7,
    });
  });

  it('expressions inside a longer string are text; objects are JSON; null and omitted are empty', () => {
    const template = compileTemplate(
      'n=${{ inputs.n }} in ${{inputs.city}}: ${{ inputs.tags }}|${{ inputs.omitted }}|',
    );
    expect(resolveTemplate(template, resolve)).toBe('n=42 in Paris: ["a","b"]||');
  });

  it('$${{ is a literal ${{, and a string without expressions is a literal', () => {
    expect(compileTemplate('cost: $${{ not.an.expression }}')).toEqual({
      kind: 'literal',
      value: 'cost: ${{ not.an.expression }}',
    });
    expect(compileTemplate({ a: [1, 'x'], b: null })).toEqual({
      kind: 'literal',
      value: { a: [1, 'x'], b: null },
    });
  });

  it('an omitted input leaves its key out of an object and is null in a list', () => {
    const template = compileTemplate({
      keep: 1,
      drop: '${{ inputs.omitted }}',
      list: ['${{ inputs.omitted }}', 2],
    });
    expect(resolveTemplate(template, resolve)).toEqual({ keep: 1, list: [null, 2] });
  });

  it('"}}" inside a quoted string does not close the expression', () => {
    const template = compileTemplate("${{ inputs.city == '}}' }}");
    expect(template.kind).toBe('expression');
    expect(resolveTemplate(template, resolve)).toBe(false);
  });

  it('resolved values are copies: changing them cannot change the source', () => {
    const literal = { nested: { n: 1 } };
    const template = compileTemplate({ a: literal, b: '${{ steps.s.result }}' });
    const out = resolveTemplate(template, resolve) as { a: { nested: { n: number } }; b: { iso: string } };
    out.a.nested.n = 2;
    out.b.iso = 'changed';
    expect(literal.nested.n).toBe(1);
    expect((context['steps.s.result'] as { iso: string }).iso).toBe('2024-01-01T00:00:00Z');
  });

  it('reports a bad expression with the JSON Pointer of its string', () => {
    let caught: unknown;
    try {
      compileTemplate({ outer: { 'a/b': ['ok', 'bad ${{ inputs. }}'] } });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(TemplateError);
    expect((caught as TemplateError).pointer).toBe('/outer/a~1b/1');
    expect(() => compileTemplate('${{ inputs.x')).toThrow('"${{" without a closing "}}"');
  });

  it('lists every expression with where it sits', () => {
    const template = compileTemplate({ a: '${{ inputs.n }}', b: ['x ${{ steps.s.result.iso }}'] });
    expect(templateExpressions(template).map((e) => [e.pointer, e.expression.source])).toEqual([
      ['/a', 'inputs.n'],
      ['/b/0', 'steps.s.result.iso'],
    ]);
  });
});

describe('resolvePartially', () => {
  it('resolves what it can and reports the deferred parts with their references', () => {
    const template = compileTemplate({
      literal: 1,
      fromInput: '${{ inputs.city }}',
      fromStep: 'at ${{ steps.s.result.iso }}',
      nested: { list: ['${{ steps.s.result.list[0].id }}', 3] },
    });
    const { value, deferred } = resolvePartially(template, (ref) => ref.root === 'inputs', resolve);
    expect(value).toEqual({ literal: 1, fromInput: 'Paris', nested: { list: [null, 3] } });
    expect(deferred.map((d) => [d.pointer, d.references.map(formatReference)])).toEqual([
      ['/fromStep', ['steps.s.result.iso']],
      ['/nested/list/0', ['steps.s.result.list[0].id']],
    ]);
  });
});
