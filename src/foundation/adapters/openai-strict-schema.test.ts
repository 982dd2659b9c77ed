import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../model/tool.js';
import { WarningCollector } from './conversion.js';
import { nullable, toOpenAIStrictSchema } from './openai-strict-schema.js';

function strict(schema: JsonSchema) {
  const warnings = new WarningCollector('t:t (openai strict)');
  const result = toOpenAIStrictSchema(schema, warnings);
  return { ...result, warnings: warnings.list() };
}

/** Every object of a strict schema is closed and requires all its properties. */
function expectStrictObjects(schema: unknown): void {
  if (Array.isArray(schema)) {
    schema.forEach(expectStrictObjects);
    return;
  }
  if (typeof schema !== 'object' || schema === null) return;
  const node = schema as JsonSchema;
  if (node.type === 'object' || (Array.isArray(node.type) && node.type.includes('object'))) {
    expect(node.additionalProperties).toBe(false);
    expect(node.required).toEqual(Object.keys(node.properties as object));
  }
  for (const value of Object.values(node)) expectStrictObjects(value);
}

describe('toOpenAIStrictSchema', () => {
  it('closes every object, requires every property and makes optional ones nullable', () => {
    const { schema, warnings, blockers } = strict({
      type: 'object',
      properties: {
        name: { type: 'string' },
        age: { type: 'integer', description: 'Years.' },
        tags: { type: 'array', items: { type: 'string' } },
        address: { type: 'object', properties: { city: { type: 'string' } } },
      },
      required: ['name'],
    });
    expect(blockers).toEqual([]);
    expectStrictObjects(schema);
    expect(schema?.properties).toEqual({
      name: { type: 'string' },
      age: { type: ['integer', 'null'], description: 'Years.' },
      tags: { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'null' }] },
      address: {
        anyOf: [
          {
            type: 'object',
            properties: { city: { type: ['string', 'null'] } },
            required: ['city'],
            additionalProperties: false,
          },
          { type: 'null' },
        ],
      },
    });
    expect(warnings).toEqual([
      't:t (openai strict): optional property made required and nullable (null means "not given") at /properties/age, /properties/tags, /properties/address/properties/city, /properties/address',
    ]);
  });

  it('turns a no-argument root into the empty closed object', () => {
    expect(strict({ type: 'object' }).schema).toEqual({
      type: 'object',
      properties: {},
      required: [],
      additionalProperties: false,
    });
  });

  it('removes unsupported keywords, one warning per keyword, and keeps the supported subset', () => {
    const { schema, warnings } = strict({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        email: { type: 'string', format: 'email', pattern: '@', minLength: 3, maxLength: 99, default: 'a@b' },
        site: { type: 'string', format: 'uri', examples: ['https://x'] },
        when: { type: 'string', format: 'date-time' },
        n: { type: 'number', minimum: 0, exclusiveMaximum: 10, multipleOf: 0.5 },
        list: { type: 'array', items: { type: 'integer' }, minItems: 1, maxItems: 3, uniqueItems: true },
        obj: {
          type: 'object',
          properties: { a: { type: 'string' } },
          required: ['a', 'ghost'],
          additionalProperties: false,
          minProperties: 1,
          if: { required: ['a'] },
          // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword, not a thenable
          then: {},
          'x-vendor': true,
        },
      },
      required: ['email', 'site', 'when', 'n', 'list', 'obj'],
      additionalProperties: false,
    });
    expect(schema?.properties).toEqual({
      email: { type: 'string', format: 'email', pattern: '@' },
      site: { type: 'string' },
      when: { type: 'string', format: 'date-time' },
      n: { type: 'number', minimum: 0, exclusiveMaximum: 10, multipleOf: 0.5 },
      list: { type: 'array', items: { type: 'integer' }, minItems: 1, maxItems: 3 },
      obj: {
        type: 'object',
        properties: { a: { type: 'string' } },
        required: ['a'],
        additionalProperties: false,
      },
    });
    expect(schema).not.toHaveProperty('$schema');
    expect(warnings).toEqual([
      't:t (openai strict): removed "minLength" (not supported in strict mode) at /properties/email',
      't:t (openai strict): removed "maxLength" (not supported in strict mode) at /properties/email',
      't:t (openai strict): removed "default" (not supported in strict mode) at /properties/email',
      't:t (openai strict): removed "format": "uri" (not a strict-mode format) at /properties/site',
      't:t (openai strict): removed "examples" (not supported in strict mode) at /properties/site',
      't:t (openai strict): removed "uniqueItems" (not supported in strict mode) at /properties/list',
      't:t (openai strict): removed "minProperties" (not supported in strict mode) at /properties/obj',
      't:t (openai strict): removed "if" (not supported in strict mode) at /properties/obj',
      't:t (openai strict): removed "then" (not supported in strict mode) at /properties/obj',
      't:t (openai strict): removed "x-vendor" (not supported in strict mode) at /properties/obj',
      't:t (openai strict): removed required names without a property schema (ghost) at /properties/obj',
    ]);
  });

  it('turns const into enum and oneOf into anyOf, and merges allOf', () => {
    const { schema, warnings } = strict({
      type: 'object',
      properties: {
        kind: { const: 'circle' },
        shape: { oneOf: [{ type: 'string' }, { type: 'number' }] },
        both: {
          allOf: [
            { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
            { type: 'object', properties: { b: { type: 'string' } }, required: ['b'] },
          ],
        },
      },
      required: ['kind', 'shape', 'both'],
    });
    expect(schema?.properties).toEqual({
      kind: { type: 'string', enum: ['circle'] },
      shape: { anyOf: [{ type: 'string' }, { type: 'number' }] },
      both: {
        type: 'object',
        properties: { a: { type: 'string' }, b: { type: 'string' } },
        required: ['a', 'b'],
        additionalProperties: false,
      },
    });
    expect(warnings).toEqual([
      't:t (openai strict): "oneOf" turned into "anyOf" (exclusivity not enforced) at /properties/shape',
    ]);
  });

  it('keeps $defs and plain $refs (recursion included), inlines a $ref that has siblings', () => {
    const { schema, warnings, blockers } = strict({
      type: 'object',
      properties: {
        tree: { $ref: '#/$defs/Node' },
        home: { $ref: '#/definitions/Address', description: 'Where they live.' },
      },
      required: ['tree', 'home'],
      $defs: {
        Node: {
          type: 'object',
          properties: { children: { type: 'array', items: { $ref: '#/$defs/Node' } } },
          required: ['children'],
        },
      },
      definitions: {
        Address: { type: 'object', properties: { zip: { type: 'string' } }, required: ['zip'] },
      },
    });
    expect(blockers).toEqual([]);
    expect(warnings).toEqual([]);
    expect(schema?.properties).toEqual({
      tree: { $ref: '#/$defs/Node' },
      home: {
        type: 'object',
        description: 'Where they live.',
        properties: { zip: { type: 'string' } },
        required: ['zip'],
        additionalProperties: false,
      },
    });
    expect((schema?.$defs as JsonSchema | undefined)?.Node).toEqual({
      type: 'object',
      properties: { children: { type: 'array', items: { $ref: '#/$defs/Node' } } },
      required: ['children'],
      additionalProperties: false,
    });
    expectStrictObjects(schema);
  });

  it('drops siblings of a recursive $ref instead of inlining forever', () => {
    const { schema, warnings } = strict({
      type: 'object',
      properties: { node: { $ref: '#/$defs/Node' } },
      required: ['node'],
      $defs: {
        Node: {
          type: 'object',
          properties: { next: { $ref: '#/$defs/Node', description: 'The next node.' } },
          required: ['next'],
        },
      },
    });
    expect((schema?.$defs as Record<string, JsonSchema> | undefined)?.Node?.properties).toEqual({
      next: { $ref: '#/$defs/Node' },
    });
    expect(warnings).toEqual([
      't:t (openai strict): removed "description" next to a recursive "$ref" at /$defs/Node/properties/next',
    ]);
  });

  it('reports what strict mode cannot express instead of changing its meaning', () => {
    const { schema, blockers } = strict({
      type: 'object',
      properties: {
        any: { description: 'Any JSON value.' },
        map: { type: 'object', additionalProperties: { type: 'string' } },
        open: { type: 'object' },
        list: { type: 'array' },
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] },
        ghost: { $ref: '#/$defs/Missing' },
        clash: { allOf: [{ type: 'string' }, { type: 'number' }] },
        never: false,
      },
    });
    expect(schema).toBeUndefined();
    expect(blockers).toEqual([
      '/properties/any: no "type": accepts any JSON value',
      '/properties/map: an open object ("additionalProperties"): a map with free keys',
      '/properties/open: an object without "properties": accepts any keys',
      '/properties/list: an array without an "items" schema: accepts any elements',
      '/properties/pair: a tuple ("prefixItems" or an "items" array)',
      '/properties/ghost: a "$ref" that does not lead to a local schema object (#/$defs/Missing)',
      '/properties/clash: "allOf" whose branches cannot be merged into one schema',
      '/properties/never: schema `false` accepts nothing',
    ]);
  });

  it('refuses schemas past the documented nesting limit', () => {
    let deep: JsonSchema = { type: 'string' };
    for (let i = 0; i < 11; i++) deep = { type: 'object', properties: { x: deep }, required: ['x'] };
    expect(strict(deep).blockers).toEqual(['/: objects nest 11 levels deep (strict mode allows 10)']);
  });

  it('infers a missing type from enum values and structure keywords', () => {
    const { schema } = strict({
      properties: { size: { enum: [1, 2, 3] }, mixed: { enum: ['a', 1] }, ratio: { enum: [0.5, 1] } },
      required: ['size', 'mixed', 'ratio'],
    });
    expect(schema).toMatchObject({
      type: 'object',
      properties: {
        size: { type: 'integer', enum: [1, 2, 3] },
        mixed: { type: ['string', 'integer'], enum: ['a', 1] },
        ratio: { type: 'number', enum: [0.5, 1] },
      },
    });
  });
});

describe('nullable', () => {
  it('uses a type list for plain primitives and anyOf with null otherwise', () => {
    expect(nullable({ type: 'string' })).toEqual({ type: ['string', 'null'] });
    expect(nullable({ type: ['string', 'number'] })).toEqual({ type: ['string', 'number', 'null'] });
    expect(nullable({ type: 'string', enum: ['a'], description: 'd' })).toEqual({
      description: 'd',
      anyOf: [{ type: 'string', enum: ['a'] }, { type: 'null' }],
    });
    expect(nullable({ $ref: '#/$defs/A' })).toEqual({ anyOf: [{ $ref: '#/$defs/A' }, { type: 'null' }] });
    expect(nullable({ anyOf: [{ type: 'string' }, { type: 'number' }] })).toEqual({
      anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'null' }],
    });
  });

  it('leaves a schema that already accepts null alone', () => {
    for (const schema of [
      { type: ['string', 'null'] },
      { enum: ['a', null] },
      { anyOf: [{ type: 'string' }, { type: 'null' }] },
    ]) {
      expect(nullable(schema)).toBe(schema);
    }
  });
});
