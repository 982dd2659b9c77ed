import { describe, expect, it } from 'vitest';
import { parseToolId } from '../../foundation/model/tool-id.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import { SchemaValidator } from '../../foundation/schema/schema-validator.js';
import type { ToolContext } from '../local/define-tool.js';
import { builtinTools } from './builtin-tools.js';

const ctx: ToolContext = {
  signal: new AbortController().signal,
  progress: () => {},
  log: silentLogger,
  caller: { identity: 'test' },
};

const tools = builtinTools({ now: () => new Date('2025-01-15T10:00:00Z') });
const validator = new SchemaValidator();
const idOf = (tool: { namespace?: string; name: string }): string => `${tool.namespace}:${tool.name}`;

describe('builtinTools', () => {
  it('returns the six built-in tools with unique ids', () => {
    const ids = tools.map(idOf);
    expect(ids).toEqual([
      'plantuml:encode',
      'plantuml:decode',
      'time:now',
      'time:convert',
      'json:query',
      'text:stats',
    ]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it.each(tools.map((tool) => [idOf(tool), tool] as const))('%s is fully described', (_id, tool) => {
    expect(tool.namespace).toMatch(/^[a-z]+$/);
    expect(tool.description.length).toBeGreaterThan(80);
    expect(tool.title).toBeTruthy();
    expect(tool.annotations).toEqual({ readOnlyHint: true, idempotentHint: true, openWorldHint: false });
    expect(tool.tags?.length).toBeGreaterThan(0);
    expect(tool.outputSchema).toBeDefined();
    expect(tool.inputSchema.additionalProperties).toBe(false);
    // Provider APIs (Anthropic, OpenAI) reject combinators at the top of a tool's input schema.
    for (const keyword of ['oneOf', 'anyOf', 'allOf']) expect(tool.inputSchema).not.toHaveProperty(keyword);
    const properties = tool.inputSchema.properties as Record<string, Record<string, unknown>>;
    for (const [name, property] of Object.entries(properties)) {
      expect(typeof property.description, `${name} needs a description`).toBe('string');
      if ('default' in property) {
        expect(validator.validate(property, property.default), `default of ${name}`).toEqual({ valid: true });
      }
    }
    expect(tool.examples?.length).toBeGreaterThanOrEqual(1);
    expect(tool.examples?.length).toBeLessThanOrEqual(3);
  });

  const examples = tools.flatMap((tool) =>
    (tool.examples ?? []).map((example) => [`${idOf(tool)}: ${example.title}`, tool, example] as const),
  );

  it.each(examples)(
    'example "%s" passes the input schema and its result the output schema',
    async (_t, tool, example) => {
      expect(validator.validate(tool.inputSchema, example.args)).toEqual({ valid: true });
      const result = await tool.handler(example.args, ctx);
      expect(validator.validate(tool.outputSchema ?? {}, result)).toEqual({ valid: true });
    },
  );

  it('rejects malformed arguments at the schema, before any handler', () => {
    const byId = new Map(tools.map((tool) => [idOf(tool), tool]));
    const invalid: [string, Record<string, unknown>][] = [
      ['plantuml:encode', {}],
      ['plantuml:encode', { source: '   ' }],
      ['plantuml:encode', { source: 'a', format: 'pdf' }],
      ['plantuml:encode', { source: 'a', server: 'ftp://x.org' }],
      ['plantuml:encode', { source: 'a', extra: 1 }],
      ['plantuml:decode', { encoded: '' }],
      ['time:now', { timezone: '' }],
      ['time:convert', { datetime: 'tomorrow' }],
      ['json:query', { expression: '', data: {} }],
      ['text:stats', { text: 'x', top: 101 }],
      ['text:stats', { text: 'x', top: 1.5 }],
    ];
    for (const [id, args] of invalid) {
      const tool = byId.get(id);
      expect(tool, id).toBeDefined();
      expect(validator.validate(tool?.inputSchema ?? {}, args).valid, `${id} ${JSON.stringify(args)}`).toBe(
        false,
      );
    }
  });

  it('ids parse as canonical tool ids', () => {
    for (const tool of tools)
      expect(parseToolId(idOf(tool))).toEqual({ namespace: tool.namespace, name: tool.name });
  });
});
