import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SchemaValidator } from '../../foundation/schema/schema-validator.js';
import { defineTool, isToolDefinitionLike } from './define-tool.js';
import { localEntries } from './local-source.js';

const handler = () => 'ok';

describe('defineTool', () => {
  it('converts zod schemas to JSON Schema that validates the same way', () => {
    const tool = defineTool({
      name: 'greet',
      description: 'Greets',
      inputSchema: z.object({ name: z.string().min(1), times: z.number().int().optional() }),
      outputSchema: z.object({ text: z.string() }),
      handler,
    });
    expect(tool.inputSchema.type).toBe('object');
    expect(tool.inputSchema.required).toEqual(['name']);
    const validator = new SchemaValidator();
    expect(validator.validate(tool.inputSchema, { name: 'a', times: 2 }).valid).toBe(true);
    expect(validator.validate(tool.inputSchema, { name: '' }).valid).toBe(false);
    expect(validator.validate(tool.inputSchema, { times: 1.5, name: 'x' }).valid).toBe(false);
    expect(tool.outputSchema?.properties).toHaveProperty('text');
    expect(isToolDefinitionLike(tool)).toBe(true);
    expect(Object.isFrozen(tool)).toBe(true);
  });

  it.each([
    [{ name: '', description: 'd', inputSchema: {}, handler }, '"name"'],
    [{ name: 'x', inputSchema: {}, handler }, '"description"'],
    [{ name: 'x', description: 'd', inputSchema: {} }, '"handler"'],
    [{ name: 'x', description: 'd', inputSchema: 'nope', handler }, '"inputSchema"'],
    [{ name: 'x', description: 'd', inputSchema: { type: 'array' }, handler }, 'type: "object"'],
    [{ name: 'x', description: 'd', inputSchema: {}, handler, timeoutMs: -1 }, '"timeoutMs"'],
  ])('refuses a bad definition with a message naming the field (%#)', (input, field) => {
    expect(() => defineTool(input as never)).toThrow(field);
  });
});

describe('localEntries', () => {
  it('builds canonical tools with normalised tags, default namespace and origin', () => {
    const [entry] = localEntries('mod', 'local', [
      defineTool({
        name: 'x',
        description: 'X',
        inputSchema: {},
        tags: ['Demo Tag', 'demo tag'],
        timeoutMs: 50,
        handler,
      }),
    ]);
    expect(entry?.tool).toMatchObject({
      id: 'local:x',
      namespace: 'local',
      tags: ['demo-tag'],
      origin: { sourceId: 'mod', kind: 'local', originalName: 'x' },
      metadata: { extra: { timeoutMs: 50 } },
    });
  });

  it('refuses names that cannot form a tool id', () => {
    expect(() =>
      localEntries('m', 'local', [defineTool({ name: 'a:b', description: '', inputSchema: {}, handler })]),
    ).toThrow(/":"/);
    expect(() =>
      localEntries('m', 'local', [
        defineTool({ name: 'ok', namespace: 'bad ns', description: '', inputSchema: {}, handler }),
      ]),
    ).toThrow(/namespace/);
  });
});
