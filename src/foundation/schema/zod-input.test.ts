import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GatewayError } from '../model/gateway-error.js';
import { parseInput, publishedInputSchema } from './zod-input.js';

const input = z.strictObject({
  id: z.string().min(1).describe('An id.'),
  mode: z.enum(['a', 'b']).default('a'),
  count: z.int().min(1).describe('How many.').optional(),
  args: z.looseObject({}).describe('Anything.').optional(),
  steps: z
    .array(z.strictObject({ name: z.string() }))
    .min(1)
    .optional(),
});

function failure(value: unknown): GatewayError {
  try {
    parseInput(input, value, 'Invalid arguments for t');
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

describe('publishedInputSchema', () => {
  it('reads as a hand-written JSON Schema: no $schema, open objects, no safe-integer bounds', () => {
    expect(publishedInputSchema(input)).toEqual({
      type: 'object',
      properties: {
        id: { type: 'string', minLength: 1, description: 'An id.' },
        mode: { type: 'string', enum: ['a', 'b'], default: 'a' },
        count: { type: 'integer', minimum: 1, description: 'How many.' },
        args: { type: 'object', additionalProperties: true, description: 'Anything.' },
        steps: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            properties: { name: { type: 'string' } },
            required: ['name'],
            additionalProperties: false,
          },
        },
      },
      required: ['id'],
      additionalProperties: false,
    });
  });

  it('puts type first and description, default last, as the JSON text shows them', () => {
    const schema = publishedInputSchema(input) as { properties: Record<string, object> };
    expect(Object.keys(schema.properties.mode ?? {})).toEqual(['type', 'enum', 'default']);
    expect(Object.keys(schema.properties.steps ?? {})).toEqual(['type', 'minItems', 'items']);
    expect(Object.keys(schema.properties.count ?? {})).toEqual(['type', 'minimum', 'description']);
  });
});

describe('parseInput', () => {
  it('returns the typed value with defaults filled in and open objects kept whole', () => {
    expect(parseInput(input, { id: 'x', args: { a: 1, b: [2] } }, 'bad')).toEqual({
      id: 'x',
      mode: 'a',
      args: { a: 1, b: [2] },
    });
  });

  it("is the caller's validation_input naming the field, as the JSON Schema validator names it", () => {
    const missing = failure({});
    expect(missing.code).toBe('validation_input');
    expect(missing.message).toMatch(/^Invalid arguments for t: \/id: /);
    expect(missing.details).toEqual({ issues: [{ path: '/id', message: expect.any(String) }] });

    expect(failure({ id: 'x', count: 1.5 }).details).toEqual({
      issues: [{ path: '/count', message: expect.any(String) }],
    });
    expect(failure({ id: 'x', steps: [{ name: 1 }] }).details).toEqual({
      issues: [{ path: '/steps/0/name', message: expect.any(String) }],
    });
  });

  it('names each unknown key on its own, with the same message as the JSON Schema validator', () => {
    expect(failure({ id: 'x', extra: 1, more: 2 }).details).toEqual({
      issues: [
        { path: '/extra', message: 'must NOT have additional properties' },
        { path: '/more', message: 'must NOT have additional properties' },
      ],
    });
  });

  it('rejects a non-object as a whole at the root', () => {
    expect(failure('text').details).toEqual({ issues: [{ path: '/', message: expect.any(String) }] });
  });
});
