import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  bool,
  decimal,
  describeValue,
  int,
  namespaceString,
  nonEmptyString,
  stringMap,
} from './config-values.js';

function messages(schema: z.ZodType, value: unknown): string[] {
  const result = schema.safeParse(value);
  return result.success ? [] : result.error.issues.map((issue) => issue.message);
}

describe('schema primitives', () => {
  it('int reads a string of digits, refuses anything else with one message', () => {
    expect(int(0, 10).parse(' 7 ')).toBe(7);
    expect(int(0, 10).parse(-0)).toBe(-0);
    expect(messages(int(0, 10), 'abc')).toEqual(['expected an integer, got "abc"']);
    expect(messages(int(0, 10), true)).toEqual(['expected an integer, got boolean true']);
    expect(int(0, 10).safeParse(1.5).success).toBe(false);
    expect(int(0, 10).safeParse('11').success).toBe(false);
  });

  it('int shares one schema per range, which chaining leaves as it was', () => {
    expect(int(3, 9)).toBe(int(3, 9));
    expect(int(3, 9)).not.toBe(int(3, 10));
    expect(int(3)).toBe(int(3, Number.MAX_SAFE_INTEGER));
    const withDefault = int(3, 9).default(5).describe('a count');
    expect(withDefault.parse(undefined)).toBe(5);
    expect(int(3, 9).safeParse(undefined).success).toBe(false);
    expect(int(3, 9).description).toBeUndefined();
    expect(messages(int(3, 9), '12')).toHaveLength(1);
  });

  it('bool and nonEmptyString are shared schemas, unchanged by chaining', () => {
    expect(bool()).toBe(bool());
    expect(nonEmptyString()).toBe(nonEmptyString());
    expect(bool().default(true).parse(undefined)).toBe(true);
    expect(bool().safeParse(undefined).success).toBe(false);
    expect(nonEmptyString().optional().parse(undefined)).toBeUndefined();
    expect(messages(nonEmptyString(), '')).toEqual(['must not be empty']);
  });

  it('decimal reads a numeric string, refuses an empty one', () => {
    expect(decimal(0, 1).parse('0.25')).toBe(0.25);
    expect(decimal(0, 1).safeParse('').success).toBe(false);
    expect(decimal(0, 1).safeParse('2').success).toBe(false);
  });

  it('bool reads "true" and "false", nothing else', () => {
    expect(bool().parse('false')).toBe(false);
    expect(bool().parse(true)).toBe(true);
    expect(bool().safeParse('yes').success).toBe(false);
    expect(bool().safeParse(1).success).toBe(false);
  });

  it('namespaceString states the rule', () => {
    expect(namespaceString().parse('gh.v2')).toBe('gh.v2');
    expect(messages(namespaceString(), 'bad ns')).toEqual([
      'must be a valid namespace (letters, digits, "_", "." or "-", starting with a letter or digit, at most 64 characters)',
    ]);
  });

  it('nonEmptyString and stringMap', () => {
    expect(messages(nonEmptyString(), '')).toEqual(['must not be empty']);
    expect(stringMap().parse({ PORT: 3000, DEBUG: false })).toEqual({ PORT: '3000', DEBUG: 'false' });
  });

  it('describeValue names the kind of a value, shortening long strings', () => {
    expect(describeValue(null)).toBe('null');
    expect(describeValue([1])).toBe('a list');
    expect(describeValue({})).toBe('an object');
    expect(describeValue('x'.repeat(50))).toBe(JSON.stringify(`${'x'.repeat(40)}…`));
    expect(describeValue(3)).toBe('number 3');
  });
});
