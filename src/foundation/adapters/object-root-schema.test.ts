import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../model/tool.js';
import { WarningCollector } from './conversion.js';
import { toObjectRootSchema } from './object-root-schema.js';

function root(schema: JsonSchema, options?: Parameters<typeof toObjectRootSchema>[2]) {
  const warnings = new WarningCollector('t:t');
  return { schema: toObjectRootSchema(schema, warnings, options), warnings: warnings.list() };
}

describe('toObjectRootSchema', () => {
  it('follows a root $ref and adds a missing type, silently', () => {
    expect(
      root({
        $ref: '#/definitions/Args',
        definitions: { Args: { type: 'object', properties: { a: { type: 'string' } } } },
      }),
    ).toEqual({
      schema: {
        type: 'object',
        properties: { a: { type: 'string' } },
        definitions: { Args: { type: 'object', properties: { a: { type: 'string' } } } },
      },
      warnings: [],
    });
    expect(root({ properties: { a: {} } })).toEqual({
      schema: { properties: { a: {} }, type: 'object' },
      warnings: [],
    });
  });

  it('merges a root allOf of objects without a warning', () => {
    const { schema, warnings } = root({
      allOf: [
        { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
        { properties: { b: { type: 'number' } }, required: ['b'] },
      ],
    });
    expect(schema).toEqual({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
    expect(warnings).toEqual([]);
  });

  it('flattens a root anyOf/oneOf: union of properties, only the names every branch requires', () => {
    const { schema, warnings } = root({
      type: 'object',
      properties: { id: { type: 'string' } },
      required: ['id'],
      oneOf: [
        { properties: { email: { type: 'string' }, name: { type: 'string' } }, required: ['email', 'name'] },
        { $ref: '#/$defs/Phone' },
      ],
      $defs: {
        Phone: {
          properties: { phone: { type: 'string' }, name: { type: 'string' } },
          required: ['phone', 'name'],
        },
      },
    });
    expect(schema).toMatchObject({
      type: 'object',
      properties: { id: {}, email: {}, name: {}, phone: {} },
      required: ['id', 'name'],
    });
    expect(schema).not.toHaveProperty('oneOf');
    expect(warnings).toEqual([
      't:t: root "oneOf" flattened into one object; its branches are no longer enforced',
    ]);
  });

  it('keeps combinators when asked, and removes forbidden root keywords with a warning', () => {
    const schema = { type: 'object', anyOf: [{ required: ['a'] }], not: { required: ['b'] } };
    expect(root(schema, { combinators: 'keep' }).schema).toEqual(schema);
    expect(root(schema, { forbidden: ['not', 'enum'] }).warnings).toEqual([
      't:t: root "anyOf" flattened into one object; its branches are no longer enforced',
      't:t: removed "not" from the root (refused there by this format)',
    ]);
  });

  it('narrows a nullable root and replaces a non-object root', () => {
    expect(root({ type: ['object', 'null'], properties: {} })).toEqual({
      schema: { type: 'object', properties: {} },
      warnings: ['t:t: root type ["object","null"] narrowed to "object"'],
    });
    expect(root({ type: 'array', items: {} }).schema).toEqual({ type: 'object', properties: {} });
  });
});
