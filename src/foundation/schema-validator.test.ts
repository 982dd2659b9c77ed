import { describe, expect, it } from 'vitest';
import { GatewayError } from './gateway-error.js';
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
