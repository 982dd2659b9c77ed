import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../model/tool.js';
import { WarningCollector } from './conversion.js';
import { fromGeminiSchema, toGeminiSchema } from './gemini-schema.js';

function gemini(schema: JsonSchema) {
  const warnings = new WarningCollector('t:t (gemini)');
  return { schema: toGeminiSchema(schema, warnings), warnings: warnings.list() };
}

describe('toGeminiSchema', () => {
  it('upper-cases types and keeps the keywords of the subset', () => {
    expect(
      gemini({
        type: 'object',
        title: 'Args',
        properties: {
          name: {
            type: 'string',
            minLength: 1,
            maxLength: 9,
            pattern: '^a',
            description: 'Name.',
            default: 'a',
          },
          when: { type: 'string', format: 'date-time' },
          count: { type: 'integer', minimum: 0, maximum: 9, format: 'int32' },
          tags: { type: 'array', items: { type: 'string', enum: ['x', 'y'] }, minItems: 1, maxItems: 3 },
          flag: { type: 'boolean' },
          nested: { type: 'object', properties: { a: { type: 'number' } }, minProperties: 1 },
        },
        required: ['name'],
      }),
    ).toEqual({
      schema: {
        type: 'OBJECT',
        title: 'Args',
        properties: {
          name: {
            type: 'STRING',
            description: 'Name.',
            default: 'a',
            minLength: 1,
            maxLength: 9,
            pattern: '^a',
          },
          when: { type: 'STRING', format: 'date-time' },
          count: { type: 'INTEGER', format: 'int32', minimum: 0, maximum: 9 },
          tags: { type: 'ARRAY', items: { type: 'STRING', enum: ['x', 'y'] }, minItems: 1, maxItems: 3 },
          flag: { type: 'BOOLEAN' },
          nested: { type: 'OBJECT', properties: { a: { type: 'NUMBER' } }, minProperties: 1 },
        },
        required: ['name'],
      },
      warnings: [],
    });
  });

  it('turns null in a type list, an anyOf or an enum into nullable', () => {
    const { schema, warnings } = gemini({
      type: 'object',
      properties: {
        a: { type: ['string', 'null'] },
        b: { anyOf: [{ type: 'integer' }, { type: 'null' }], description: 'B.' },
        c: { enum: ['x', null] },
        d: { type: ['string', 'integer'], minimum: 1, maxLength: 3 },
      },
    });
    expect(schema.properties).toEqual({
      a: { type: 'STRING', nullable: true },
      b: { type: 'INTEGER', description: 'B.', nullable: true },
      c: { type: 'STRING', nullable: true, enum: ['x'] },
      d: {
        anyOf: [
          { type: 'STRING', maxLength: 3 },
          { type: 'INTEGER', minimum: 1 },
        ],
      },
    });
    expect(warnings).toEqual([]);
  });

  it('rewrites what Gemini lacks and reports each change', () => {
    const { schema, warnings } = gemini({
      type: 'object',
      properties: {
        kind: { const: 'a' },
        level: { enum: [1, 2], description: 'Level.' },
        url: { type: 'string', format: 'uri' },
        ratio: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1, multipleOf: 0.1 },
        pick: { oneOf: [{ type: 'string' }, { type: 'number' }] },
        list: { type: 'array', items: { type: 'string' }, uniqueItems: true, examples: [['a']] },
        map: { type: 'object', additionalProperties: { type: 'string' } },
        closed: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
      },
      required: ['kind', 'ghost'],
      $schema: 'https://json-schema.org/draft/2020-12/schema',
    });
    expect(schema.properties).toEqual({
      kind: { type: 'STRING', enum: ['a'] },
      level: { type: 'INTEGER', description: 'Level. Allowed values: 1, 2.' },
      url: { type: 'STRING' },
      ratio: { type: 'NUMBER', minimum: 0, maximum: 1 },
      pick: { anyOf: [{ type: 'STRING' }, { type: 'NUMBER' }] },
      list: { type: 'ARRAY', items: { type: 'STRING' } },
      map: { type: 'OBJECT' },
      closed: { type: 'OBJECT', properties: { a: { type: 'STRING' } } },
    });
    expect(schema.required).toEqual(['kind']);
    expect(warnings).toEqual([
      't:t (gemini): non-string enum moved to the description (Gemini enums are strings) at /properties/level',
      't:t (gemini): removed "format": "uri" (not a Gemini format) at /properties/url',
      't:t (gemini): "exclusiveMinimum" relaxed to "minimum" at /properties/ratio',
      't:t (gemini): "exclusiveMaximum" relaxed to "maximum" at /properties/ratio',
      't:t (gemini): removed "multipleOf" (not supported by Gemini) at /properties/ratio',
      't:t (gemini): "oneOf" turned into "anyOf" (exclusivity not enforced) at /properties/pick',
      't:t (gemini): removed "uniqueItems" (not supported by Gemini) at /properties/list',
      't:t (gemini): removed "examples" (not supported by Gemini) at /properties/list',
      't:t (gemini): removed "additionalProperties" (free-form keys not supported by Gemini) at /properties/map',
      't:t (gemini): removed required names without a property schema at /',
    ]);
  });

  it('inlines $refs and cuts recursion with a warning', () => {
    const { schema, warnings } = gemini({
      type: 'object',
      properties: { head: { $ref: '#/$defs/Item', description: 'First item.' } },
      $defs: {
        Item: {
          type: 'object',
          description: 'An item.',
          properties: { label: { type: 'string' }, next: { $ref: '#/$defs/Item' } },
        },
      },
    });
    expect(schema).toEqual({
      type: 'OBJECT',
      properties: {
        head: {
          type: 'OBJECT',
          description: 'First item.',
          properties: { label: { type: 'STRING' }, next: { type: 'OBJECT', description: 'An item.' } },
        },
      },
    });
    expect(warnings).toEqual([
      't:t (gemini): recursive "$ref" cut (Gemini has no references) at /properties/head/properties/next',
    ]);
  });

  it('sends a value of any type without a type, and says so', () => {
    const { schema, warnings } = gemini({
      type: 'object',
      properties: { v: { description: 'Anything.' }, w: true },
    });
    expect(schema.properties).toEqual({ v: { description: 'Anything.' }, w: {} });
    expect(warnings).toEqual([
      't:t (gemini): a schema of any value has no Gemini type; sent without a type at /properties/v, /properties/w',
    ]);
  });
});

describe('fromGeminiSchema', () => {
  it('reads upper- or lower-case types, nullable, example, int64 strings', () => {
    const warnings = new WarningCollector('t (from gemini)');
    expect(
      fromGeminiSchema(
        {
          type: 'OBJECT',
          propertyOrdering: ['a', 'b'],
          properties: {
            a: { type: 'string', format: 'enum', enum: ['x'], nullable: true },
            b: { type: 'ARRAY', items: { type: 'INTEGER' }, minItems: '1', example: [1] },
            c: { anyOf: [{ type: 'STRING' }], nullable: true },
          },
          required: ['a'],
          unknownField: 1,
        },
        warnings,
      ),
    ).toEqual({
      type: 'object',
      properties: {
        a: { type: ['string', 'null'], enum: ['x', null] },
        b: { type: 'array', items: { type: 'integer' }, minItems: 1, examples: [[1]] },
        c: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      },
      required: ['a'],
    });
    expect(warnings.list()).toEqual([
      't (from gemini): removed "unknownField" (not a Gemini schema field) at /',
    ]);
  });
});
