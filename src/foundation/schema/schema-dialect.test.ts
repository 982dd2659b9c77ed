import { describe, expect, it } from 'vitest';
import { toDraft2020 } from './schema-dialect.js';

describe('toDraft2020', () => {
  it('rewrites the forms older drafts and OpenAPI 3.0 use, in every subschema', () => {
    const old = {
      type: 'object',
      properties: {
        n: { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 9, exclusiveMaximum: false },
        t: { type: 'array', items: [{ type: 'string' }, { type: 'number' }], additionalItems: false },
        l: { type: 'array', items: { type: 'string', nullable: true } },
        d: { type: 'object', dependencies: { a: ['b'], c: { required: ['d'] } } },
        nullable: { type: 'string' },
      },
      default: { items: [1], nullable: true },
    };
    expect(toDraft2020(old)).toEqual({
      type: 'object',
      properties: {
        n: { type: 'number', exclusiveMinimum: 0, maximum: 9 },
        t: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false },
        l: { type: 'array', items: { type: ['string', 'null'] } },
        d: { type: 'object', dependentRequired: { a: ['b'] }, dependentSchemas: { c: { required: ['d'] } } },
        nullable: { type: 'string' },
      },
      default: { items: [1], nullable: true },
    });
    expect(old.properties.n.exclusiveMinimum).toBe(true);
  });

  it('leaves a 2020-12 schema as it is', () => {
    const modern = { type: 'array', prefixItems: [{ const: 1 }], items: false, exclusiveMinimum: 3 };
    expect(toDraft2020(modern)).toEqual(modern);
  });
});
