import { describe, expect, it } from 'vitest';
import { GatewayError } from '../model/gateway-error.js';
import { formatIssues, SchemaValidator } from './schema-validator.js';

const validator = new SchemaValidator();

describe('SchemaValidator', () => {
  it('validates 2020-12 schemas and names the failing paths', () => {
    const schema = {
      type: 'object',
      properties: {
        a: { type: 'string', format: 'email' },
        n: { type: 'object', properties: { x: { type: 'integer' } } },
        b: {},
      },
      required: ['a', 'b'],
      additionalProperties: false,
    };
    const outcome = validator.validate(schema, { a: 'not-an-email', c: 1, n: { x: 'y' } });
    expect(outcome.valid).toBe(false);
    if (outcome.valid) return;
    const paths = outcome.issues.map((i) => i.path).sort();
    expect(paths).toEqual(['/a', '/b', '/c', '/n/x']);
    expect(formatIssues(outcome.issues)).toContain('/b: must have required property');
    expect(validator.validate(schema, { a: 'a@b.co', b: 1 })).toEqual({ valid: true });
  });

  it('supports 2020-12 keywords (prefixItems) and draft-07 schemas', () => {
    expect(validator.validate({ type: 'array', prefixItems: [{ type: 'string' }] }, [1]).valid).toBe(false);
    const draft7 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { n: { type: 'integer' } },
    };
    expect(validator.validate(draft7, { n: 1.5 }).valid).toBe(false);
    expect(validator.validate(draft7, { n: 2 }).valid).toBe(true);
  });

  it('never fetches a remote $ref: the schema is refused as unusable', () => {
    expect(() => validator.validate({ $ref: 'https://example.com/schema.json' }, {})).toThrow(GatewayError);
  });

  it('tolerates the same $id in many tool schemas', () => {
    const a = { $id: 'urn:x', type: 'string' };
    const b = { $id: 'urn:x', type: 'number' };
    expect(validator.validate(a, 's').valid).toBe(true);
    expect(validator.validate(b, 1).valid).toBe(true);
  });
});

describe('SchemaValidator: patterns run in bounded time (regression: `^(a+)+$` froze the gateway)', () => {
  const killer = `${'a'.repeat(26)}!`;

  it('validates an exponential `pattern` against a killer string at once', () => {
    const validator = new SchemaValidator();
    const started = performance.now();
    const outcome = validator.validate({ type: 'string', pattern: '^(a+)+$' }, killer);
    expect(performance.now() - started).toBeLessThan(500);
    expect(outcome.valid).toBe(false);
    expect(validator.validate({ type: 'string', pattern: '^(a+)+$' }, 'aaaa').valid).toBe(true);
  });

  it('validates an exponential `patternProperties` key against a killer property name at once', () => {
    const validator = new SchemaValidator();
    const schema = { type: 'object', patternProperties: { '^(a+)+$': { type: 'number' } } };
    const started = performance.now();
    expect(validator.validate(schema, { [killer]: 'not a number' }).valid).toBe(true);
    expect(performance.now() - started).toBeLessThan(500);
    expect(validator.validate(schema, { aaa: 'not a number' }).valid).toBe(false);
  });

  it('refuses a schema whose pattern needs backtracking, as an unusable schema', () => {
    const validator = new SchemaValidator();
    expect(() => validator.compile({ type: 'string', pattern: '^(a)\\1$' })).toThrow(
      expect.objectContaining({
        code: 'invalid_request',
        message: expect.stringContaining('Unusable JSON Schema'),
      }),
    );
  });

  it('runs every ajv-formats format on long adversarial strings in bounded time', () => {
    const validator = new SchemaValidator();
    const formats = [
      'email',
      'uri',
      'uri-reference',
      'hostname',
      'date-time',
      'time',
      'ipv4',
      'ipv6',
      'uuid',
      'json-pointer',
      'relative-json-pointer',
      'uri-template',
      'url',
      'regex',
      'duration',
      'byte',
    ];
    const inputs = [
      'a'.repeat(20000),
      `${'a.'.repeat(10000)}!`,
      `${'1'.repeat(20000)}:`,
      `${'%25'.repeat(5000)}\u0000`,
    ];
    for (const format of formats) {
      for (const input of inputs) {
        const started = performance.now();
        validator.validate({ type: 'string', format }, input);
        expect(performance.now() - started, format).toBeLessThan(500);
      }
    }
  });
});

describe('SchemaValidator.schemaProblem', () => {
  it('reports a pattern the linear-time engine cannot run, with its pointer (config refuses it at load)', () => {
    const validator = new SchemaValidator();
    expect(
      validator.schemaProblem({ properties: { word: { type: 'string', pattern: '^(a)\\1$' } } }),
    ).toMatch(/^schema\/properties\/word\/pattern: pattern "\^\(a\)\\\\1\$" is not supported/);
    expect(
      validator.schemaProblem({ properties: { word: { type: 'string', pattern: '^(a+)+$' } } }),
    ).toBeUndefined();
  });
});
