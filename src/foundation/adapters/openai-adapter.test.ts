import { describe, expect, it } from 'vitest';
import { GatewayError } from '../model/gateway-error.js';
import type { Tool } from '../model/tool.js';
import {
  fromOpenAITool,
  OPENAI_DESCRIPTION_LIMIT,
  toOpenAIChatTool,
  toOpenAIResponsesTool,
} from './openai-adapter.js';

const TOOL: Tool = {
  id: 'time:now',
  namespace: 'time',
  name: 'now',
  title: 'Current time',
  description: 'Returns the current time.',
  inputSchema: {
    type: 'object',
    properties: { timezone: { type: 'string', default: 'UTC' } },
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true },
  tags: [],
  metadata: {},
  examples: [],
  origin: { sourceId: 'builtin', kind: 'builtin', originalName: 'now' },
};

describe('toOpenAIChatTool', () => {
  it('wraps the function, passes the schema through and leaves strict unsaid by default', () => {
    expect(toOpenAIChatTool(TOOL)).toEqual({
      value: {
        type: 'function',
        function: {
          name: 'time__now',
          description: 'Returns the current time.',
          parameters: TOOL.inputSchema,
        },
      },
      warnings: ['time:now (openai): title, annotations cannot be expressed in this format; dropped'],
    });
  });

  it('in strict mode rewrites the parameters and says strict: true', () => {
    const { value, warnings } = toOpenAIChatTool(TOOL, { strict: true, name: 'now' });
    expect(value.function).toEqual({
      name: 'now',
      description: 'Returns the current time.',
      parameters: {
        type: 'object',
        properties: { timezone: { type: ['string', 'null'] } },
        required: ['timezone'],
        additionalProperties: false,
      },
      strict: true,
    });
    expect(warnings).toContain(
      'time:now (openai strict): removed "default" (not supported in strict mode) at /properties/timezone',
    );
  });

  it('falls back to strict: false with the original parameters when strict mode cannot express them', () => {
    const tool = { ...TOOL, inputSchema: { type: 'object', properties: { data: {} } } };
    const { value, warnings } = toOpenAIChatTool(tool, { strict: true });
    expect(value.function.strict).toBe(false);
    expect(value.function.parameters).toEqual(tool.inputSchema);
    expect(warnings).toContain(
      'time:now (openai strict): strict mode impossible (/properties/data: no "type": accepts any JSON value); exported with strict: false',
    );
    expect(warnings.some((w) => w.includes('nullable'))).toBe(false);
  });

  it(`truncates a description past ${OPENAI_DESCRIPTION_LIMIT} characters (code points) with a warning`, () => {
    const description = '😀'.repeat(OPENAI_DESCRIPTION_LIMIT + 1);
    const { title: _title, ...untitled } = TOOL;
    const { value, warnings } = toOpenAIChatTool({ ...untitled, description, annotations: {} });
    expect(Array.from(value.function.description)).toHaveLength(OPENAI_DESCRIPTION_LIMIT);
    expect(value.function.description.endsWith('😀…')).toBe(true);
    expect(warnings).toEqual(['time:now (openai): description of 1025 characters truncated to 1024']);
  });

  it('flattens a root combinator and drops root enum/not, which OpenAI refuses', () => {
    const tool = {
      ...TOOL,
      inputSchema: {
        type: 'object',
        oneOf: [{ properties: { a: { type: 'string' } } }],
        not: { required: ['b'] },
      },
    };
    const { value, warnings } = toOpenAIChatTool(tool);
    expect(value.function.parameters).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
    expect(warnings).toEqual([
      'time:now (openai): title, annotations cannot be expressed in this format; dropped',
      'time:now (openai): root "oneOf" flattened into one object; its branches are no longer enforced',
      'time:now (openai): removed "not" from the root (refused there by this format)',
    ]);
  });

  it('gives a no-argument tool an empty properties object', () => {
    expect(toOpenAIChatTool({ ...TOOL, inputSchema: {} }).value.function.parameters).toEqual({
      type: 'object',
      properties: {},
    });
  });
});

describe('toOpenAIResponsesTool', () => {
  it('is flat and always states strict (the Responses API defaults it to true)', () => {
    expect(toOpenAIResponsesTool(TOOL).value).toEqual({
      type: 'function',
      name: 'time__now',
      description: 'Returns the current time.',
      parameters: TOOL.inputSchema,
      strict: false,
    });
    expect(toOpenAIResponsesTool(TOOL, { strict: true }).value.strict).toBe(true);
  });
});

describe('fromOpenAITool', () => {
  const options = { namespace: 'time', sourceId: 'openai' };

  it('reads the Chat Completions, Responses and bare function shapes alike', () => {
    const chat = toOpenAIChatTool(TOOL, { name: 'now' }).value;
    const responses = toOpenAIResponsesTool(TOOL, { name: 'now' }).value;
    for (const entry of [chat, responses, chat.function]) {
      const { value, warnings } = fromOpenAITool(entry, options);
      expect(value).toMatchObject({
        id: 'time:now',
        description: TOOL.description,
        inputSchema: TOOL.inputSchema,
      });
      expect(value.origin).toEqual({ sourceId: 'openai', kind: 'local', originalName: 'now' });
      expect(warnings).toEqual([]);
    }
  });

  it('says that strict parameters cannot tell optional properties apart', () => {
    const strict = toOpenAIResponsesTool(TOOL, { strict: true, name: 'now' }).value;
    expect(fromOpenAITool(strict, options).warnings).toEqual([
      'now (from openai): strict parameters taken as they are (optional properties stay nullable)',
    ]);
  });

  it('accepts a function without parameters and refuses what is not a function', () => {
    expect(fromOpenAITool({ name: 'ping' }, options).value.inputSchema).toEqual({
      type: 'object',
      properties: {},
    });
    for (const bad of [
      undefined,
      [],
      { type: 'function', function: { description: 'x' } },
      { name: 'x', parameters: [] },
    ]) {
      expect(() => fromOpenAITool(bad, options)).toThrow(GatewayError);
    }
  });
});
