import { describe, expect, it } from 'vitest';
import { GatewayError } from '../model/gateway-error.js';
import type { Tool } from '../model/tool.js';
import { fromAnthropicTool, toAnthropicTool } from './anthropic-adapter.js';

const TOOL: Tool = {
  id: 'search:web',
  namespace: 'search',
  name: 'web',
  description: 'Searches the web.',
  inputSchema: {
    type: 'object',
    properties: {
      q: { type: 'string', minLength: 1, format: 'uri-reference' },
      when: { $ref: '#/$defs/Range' },
    },
    required: ['q'],
    $defs: { Range: { type: 'object', properties: { from: { type: 'string', format: 'date' } } } },
  },
  outputSchema: { type: 'object' },
  annotations: {},
  tags: [],
  metadata: {},
  examples: [],
  origin: { sourceId: 'search', kind: 'local', originalName: 'web' },
};

describe('toAnthropicTool', () => {
  it('passes JSON Schema through as input_schema (Anthropic takes the full vocabulary)', () => {
    expect(toAnthropicTool(TOOL)).toEqual({
      value: { name: 'search__web', description: 'Searches the web.', input_schema: TOOL.inputSchema },
      warnings: ['search:web (anthropic): outputSchema cannot be expressed in this format; dropped'],
    });
  });

  it('flattens oneOf/anyOf/allOf at the root, which the API refuses', () => {
    const { outputSchema: _outputSchema, ...withoutOutput } = TOOL;
    const tool = {
      ...withoutOutput,
      inputSchema: {
        anyOf: [
          { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] },
          { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        ],
      },
    };
    expect(toAnthropicTool(tool, { name: 'web' })).toEqual({
      value: {
        name: 'web',
        description: 'Searches the web.',
        input_schema: { type: 'object', properties: { url: { type: 'string' }, text: { type: 'string' } } },
      },
      warnings: [
        'search:web (anthropic): root "anyOf" flattened into one object; its branches are no longer enforced',
      ],
    });
  });
});

describe('fromAnthropicTool', () => {
  it('round-trips the tool contract', () => {
    const back = fromAnthropicTool(toAnthropicTool(TOOL, { name: 'web' }).value, {
      namespace: 'search',
      sourceId: 'search',
    });
    expect(back).toEqual({ value: { ...TOOL, outputSchema: undefined }, warnings: [] });
  });

  it('ignores request-only fields, reports unknown ones, refuses non-tools', () => {
    const options = { namespace: 'x', sourceId: 'x' };
    const back = fromAnthropicTool(
      {
        name: 'a',
        input_schema: { type: 'object' },
        cache_control: { type: 'ephemeral' },
        input_examples: [{}],
      },
      options,
    );
    expect(back.warnings).toEqual([
      'a (from anthropic): fields "input_examples" have no canonical equivalent; dropped',
    ]);
    expect(fromAnthropicTool({ name: 'b' }, options).warnings).toEqual([
      'b (from anthropic): no input_schema; assumed an object with any properties',
    ]);
    expect(() => fromAnthropicTool({ input_schema: {} }, options)).toThrow(GatewayError);
    expect(() => fromAnthropicTool({ name: 'c', description: 1 }, options)).toThrow(GatewayError);
  });
});
