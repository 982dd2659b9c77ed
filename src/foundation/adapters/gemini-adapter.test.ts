import { describe, expect, it } from 'vitest';
import { GatewayError } from '../model/gateway-error.js';
import type { Tool } from '../model/tool.js';
import {
  fromGeminiFunctionDeclaration,
  fromGeminiTool,
  toGeminiFunctionDeclaration,
} from './gemini-adapter.js';

const TOOL: Tool = {
  id: 'math:add',
  namespace: 'math',
  name: 'add',
  title: 'Add',
  description: 'Adds two numbers.',
  inputSchema: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: ['number', 'null'] } },
    required: ['a'],
  },
  outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
  annotations: { readOnlyHint: true },
  tags: [],
  metadata: {},
  examples: [],
  origin: { sourceId: 'math', kind: 'local', originalName: 'add' },
};

describe('toGeminiFunctionDeclaration', () => {
  it('declares parameters and response in the OpenAPI subset', () => {
    expect(toGeminiFunctionDeclaration(TOOL)).toEqual({
      value: {
        name: 'math__add',
        description: 'Adds two numbers.',
        parameters: {
          type: 'OBJECT',
          properties: { a: { type: 'NUMBER' }, b: { type: 'NUMBER', nullable: true } },
          required: ['a'],
        },
        response: { type: 'OBJECT', properties: { sum: { type: 'NUMBER' } }, required: ['sum'] },
      },
      warnings: ['math:add (gemini): title, annotations cannot be expressed in this format; dropped'],
    });
  });

  it('omits parameters for a function without any (Gemini refuses an OBJECT without properties)', () => {
    const { outputSchema: _outputSchema, ...withoutOutput } = TOOL;
    const { value } = toGeminiFunctionDeclaration({ ...withoutOutput, inputSchema: { type: 'object' } });
    expect(value).toEqual({ name: 'math__add', description: 'Adds two numbers.' });
  });

  it('points warnings about the output schema under /outputSchema', () => {
    const { title: _title, ...untitled } = TOOL;
    const tool = {
      ...untitled,
      annotations: {},
      outputSchema: { type: 'string', format: 'uri' },
    };
    expect(toGeminiFunctionDeclaration(tool).warnings).toEqual([
      'math:add (gemini): removed "format": "uri" (not a Gemini format) at /outputSchema',
    ]);
  });
});

describe('fromGeminiFunctionDeclaration', () => {
  const options = { namespace: 'math', sourceId: 'math' };

  it('round-trips a tool whose schemas are inside the subset', () => {
    const back = fromGeminiFunctionDeclaration(
      toGeminiFunctionDeclaration(TOOL, { name: 'add' }).value,
      options,
    );
    expect(back.warnings).toEqual([]);
    expect(back.value).toEqual({ ...TOOL, title: undefined, annotations: {} });
  });

  it('takes parametersJsonSchema/responseJsonSchema as they are', () => {
    const back = fromGeminiFunctionDeclaration(
      {
        name: 'f',
        parametersJsonSchema: { type: 'object', additionalProperties: false },
        responseJsonSchema: { const: 1 },
      },
      options,
    );
    expect(back.value.inputSchema).toEqual({ type: 'object', additionalProperties: false });
    expect(back.value.outputSchema).toEqual({ const: 1 });
  });

  it('reads a whole Gemini tool and refuses what is not one', () => {
    const tools = fromGeminiTool(
      { functionDeclarations: [{ name: 'f' }, { name: 'g', behavior: 'BLOCKING' }] },
      options,
    );
    expect(tools.value.map((t) => t.id)).toEqual(['math:f', 'math:g']);
    expect(tools.warnings).toEqual([
      'g (from gemini): fields "behavior" have no canonical equivalent; dropped',
    ]);
    expect(() => fromGeminiTool({ tools: [] }, options)).toThrow(GatewayError);
    expect(() => fromGeminiFunctionDeclaration({ name: 'f', parameters: 'x' }, options)).toThrow(
      GatewayError,
    );
  });
});
