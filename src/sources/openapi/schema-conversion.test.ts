import { describe, expect, it } from 'vitest';
import { SchemaValidator } from '../../foundation/schema/schema-validator.js';
import { toJsonSchema } from './schema-conversion.js';

describe('toJsonSchema', () => {
  it('turns 3.0 nullable into type arrays, enum members or anyOf', () => {
    expect(toJsonSchema({ type: 'string', nullable: true }, 'request')).toEqual({ type: ['string', 'null'] });
    expect(toJsonSchema({ type: ['integer', 'null'], nullable: true }, 'request')).toEqual({
      type: ['integer', 'null'],
    });
    expect(toJsonSchema({ type: 'string', enum: ['a'], nullable: true }, 'request')).toEqual({
      type: ['string', 'null'],
      enum: ['a', null],
    });
    expect(toJsonSchema({ oneOf: [{ type: 'string' }], nullable: true }, 'request')).toEqual({
      anyOf: [{ oneOf: [{ type: 'string' }] }, { type: 'null' }],
    });
    expect(toJsonSchema({ type: 'string', nullable: false }, 'request')).toEqual({ type: 'string' });
  });

  it('turns draft-04 boolean exclusive bounds into numbers', () => {
    expect(
      toJsonSchema(
        { type: 'number', minimum: 1, exclusiveMinimum: true, maximum: 9, exclusiveMaximum: false },
        'request',
      ),
    ).toEqual({ type: 'number', exclusiveMinimum: 1, maximum: 9 });
  });

  it('drops OpenAPI-only keywords and extensions, keeps examples', () => {
    expect(
      toJsonSchema(
        {
          type: 'object',
          example: { a: 1 },
          xml: { name: 'x' },
          'x-internal': true,
          discriminator: { propertyName: 't' },
        },
        'response',
      ),
    ).toEqual({ type: 'object', examples: [{ a: 1 }] });
  });

  it('drops readOnly properties from requests and writeOnly ones from responses', () => {
    const schema = {
      type: 'object',
      required: ['id', 'password', 'name'],
      properties: {
        id: { type: 'string', readOnly: true },
        password: { type: 'string', writeOnly: true },
        name: { type: 'string' },
      },
    };
    const request = toJsonSchema(schema, 'request');
    expect(Object.keys(request.properties as object)).toEqual(['password', 'name']);
    expect(request.required).toEqual(['password', 'name']);
    const response = toJsonSchema(schema, 'response');
    expect(Object.keys(response.properties as object)).toEqual(['id', 'name']);
  });

  it('cuts circular references to {} and never modifies the input', () => {
    const node: Record<string, unknown> = { type: 'object', properties: {} };
    (node.properties as Record<string, unknown>).children = { type: 'array', items: node };
    const copy = toJsonSchema(node, 'response');
    expect(copy).toEqual({ type: 'object', properties: { children: { type: 'array', items: {} } } });
    expect((node.properties as Record<string, { items: unknown }>).children?.items).toBe(node);
    expect(() => JSON.stringify(copy)).not.toThrow();
    expect(() => new SchemaValidator().compile(copy)).not.toThrow();
  });

  it('keeps a shared (non-circular) subschema in both places', () => {
    const shared = { type: 'string', nullable: true };
    const out = toJsonSchema({ type: 'object', properties: { a: shared, b: shared } }, 'request');
    expect(out.properties).toEqual({ a: { type: ['string', 'null'] }, b: { type: ['string', 'null'] } });
    expect(shared).toEqual({ type: 'string', nullable: true });
  });

  it('maps a missing or boolean schema to an object schema', () => {
    expect(toJsonSchema(undefined, 'request')).toEqual({});
    expect(toJsonSchema(true, 'request')).toEqual({});
    expect(toJsonSchema(false, 'request')).toEqual({ not: {} });
  });
});
