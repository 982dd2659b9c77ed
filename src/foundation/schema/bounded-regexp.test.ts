import { describe, expect, it } from 'vitest';
import { boundedRegExp, patternProblem, schemaPatternProblem } from './bounded-regexp.js';

const KILLER = `${'a'.repeat(40)}!`;

describe('boundedRegExp', () => {
  it('runs an exponential pattern on a killer string in linear time', () => {
    const started = performance.now();
    expect(boundedRegExp('^(a+)+$').test(KILLER)).toBe(false);
    expect(boundedRegExp('^(a|aa)+$').test(`${'a'.repeat(5000)}!`)).toBe(false);
    expect(performance.now() - started).toBeLessThan(200);
  });

  it('keeps ECMAScript semantics for the escapes JSON Schemas use', () => {
    expect(boundedRegExp('^\\u00e9$').test('é')).toBe(true);
    expect(boundedRegExp('^[\\u0000-\\u001f]+$').test('\n\t')).toBe(true);
    expect(boundedRegExp('^(?<year>\\d{4})-\\d{2}$').test('2026-11')).toBe(true);
    expect(boundedRegExp('a+').test('xx aaa')).toBe(true);
    expect(boundedRegExp('^abc$', 'i').test('ABC')).toBe(true);
    expect(boundedRegExp('^\\/v1\\/').test('/v1/x')).toBe(true);
  });

  it('refuses what has no linear-time form, naming the pattern', () => {
    expect(patternProblem('(a)\\1')).toContain('"(a)\\\\1" is not supported');
    expect(patternProblem('(?=a)b')).toBeDefined();
    expect(patternProblem('(?<=a)b')).toBeDefined();
    expect(patternProblem('^[a-z]+$')).toBeUndefined();
  });
});

describe('schemaPatternProblem', () => {
  it('finds an unsupported pattern at any depth, and in patternProperties keys', () => {
    expect(
      schemaPatternProblem({
        type: 'object',
        properties: { default: { type: 'array', items: { type: 'string', pattern: '(?!x)y' } } },
      }),
    ).toMatch(/^\/properties\/default\/items\/pattern: /);
    expect(schemaPatternProblem({ patternProperties: { '(a)\\1': {} } })).toMatch(/^\/patternProperties: /);
    expect(schemaPatternProblem({ $defs: { a: { anyOf: [{ pattern: '(?<=a)' }] } } })).toMatch(
      /^\/\$defs\/a\/anyOf\/0\/pattern: /,
    );
  });

  it('ignores data that only looks like a schema, and accepts linear patterns', () => {
    expect(schemaPatternProblem({ const: { pattern: '(a)\\1' }, examples: [{ pattern: '(?=x)' }] })).toBe(
      undefined,
    );
    expect(schemaPatternProblem({ properties: { a: { pattern: '^(a+)+$' } } })).toBeUndefined();
  });
});
