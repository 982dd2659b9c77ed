import { describe, expect, it } from 'vitest';
import { GatewayError } from '../model/gateway-error.js';
import type { Tool } from '../model/tool.js';
import { fromMcpTool, toMcpTool } from './mcp-adapter.js';

const TOOL: Tool = {
  id: 'notes:add',
  namespace: 'notes',
  name: 'add',
  title: 'Add a note',
  description: 'Adds a note.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  outputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  annotations: { destructiveHint: false, idempotentHint: false },
  tags: ['notes'],
  metadata: { cost: 1 },
  examples: [{ title: 'A note', args: { text: 'hi' } }],
  origin: { sourceId: 'notes', kind: 'mcp', originalName: 'add' },
};

describe('toMcpTool', () => {
  it('carries name, title, description, both schemas and annotations', () => {
    expect(toMcpTool(TOOL)).toEqual({
      value: {
        name: 'notes:add',
        title: 'Add a note',
        description: 'Adds a note.',
        inputSchema: TOOL.inputSchema,
        outputSchema: TOOL.outputSchema,
        annotations: { destructiveHint: false, idempotentHint: false },
      },
      warnings: [],
    });
    expect(toMcpTool(TOOL, { name: 'notes__add' }).value.name).toBe('notes__add');
  });

  it('omits what the tool does not have and never shares the schema objects', () => {
    const { title: _title, outputSchema: _outputSchema, ...rest } = TOOL;
    const bare: Tool = { ...rest, annotations: {} };
    const { value } = toMcpTool(bare);
    expect(Object.keys(value)).toEqual(['name', 'description', 'inputSchema']);
    expect(value.inputSchema).not.toBe(TOOL.inputSchema);
  });

  it('gives the input schema an object root, keeping root combinators (valid next to type object)', () => {
    const tool = { ...TOOL, inputSchema: { anyOf: [{ required: ['a'] }, { required: ['b'] }] } };
    expect(toMcpTool(tool)).toMatchObject({
      value: { inputSchema: { type: 'object', anyOf: [{ required: ['a'] }, { required: ['b'] }] } },
      warnings: [],
    });
    const scalar = toMcpTool({ ...TOOL, inputSchema: { type: 'string' } });
    expect(scalar.value.inputSchema).toEqual({ type: 'object', properties: {} });
    expect(scalar.warnings).toEqual([
      'notes:add (mcp): root type "string" is not an object; replaced by an empty object schema',
    ]);
  });
});

describe('fromMcpTool', () => {
  it('round-trips a canonical tool (tags, metadata and examples start empty)', () => {
    const back = fromMcpTool(toMcpTool(TOOL, { name: 'add' }).value, {
      namespace: 'notes',
      sourceId: 'notes',
    });
    expect(back).toEqual({
      value: { ...TOOL, tags: [], metadata: {}, examples: [] },
      warnings: [],
    });
  });

  it('reports fields and annotations it cannot keep, and names it has to change', () => {
    const back = fromMcpTool(
      {
        name: 'say hello:now',
        inputSchema: { type: 'object' },
        annotations: { readOnlyHint: true, priority: 3 },
        _meta: { x: 1 },
        icons: [],
      },
      { namespace: 'srv', sourceId: 'srv', kind: 'local' },
    );
    expect(back.value).toMatchObject({
      id: 'srv:say_hello_now',
      name: 'say_hello_now',
      description: '',
      annotations: { readOnlyHint: true },
      origin: { sourceId: 'srv', kind: 'local', originalName: 'say hello:now' },
      meta: { x: 1 },
    });
    expect(back.warnings).toEqual([
      'say hello:now (from mcp): annotation "priority" is not a known MCP annotation; dropped',
      'say hello:now (from mcp): name "say hello:now" is not a valid tool name; renamed "say_hello_now"',
      'say hello:now (from mcp): fields "icons" have no canonical equivalent; dropped',
    ]);
  });

  it('keeps a tool’s `_meta` and gives it back on the way out', () => {
    const meta = { 'com.example/ui': { resourceUri: 'ui://chart' } };
    const back = fromMcpTool(
      { name: 'chart', inputSchema: { type: 'object' }, _meta: meta },
      {
        namespace: 'srv',
        sourceId: 'srv',
        kind: 'mcp',
      },
    );
    expect(back.value.meta).toEqual(meta);
    expect(back.warnings).toEqual([]);
    expect(toMcpTool(back.value).value._meta).toEqual(meta);
  });

  it('throws invalid_request for what is not an MCP tool at all', () => {
    const options = { namespace: 'srv', sourceId: 'srv' };
    for (const bad of [
      null,
      'tool',
      {},
      { name: '' },
      { name: 'x', inputSchema: 'object' },
      { name: 'x', title: 3 },
    ]) {
      expect(() => fromMcpTool(bad, options)).toThrow(GatewayError);
    }
    expect(() => fromMcpTool({ name: 'x', inputSchema: {} }, { namespace: 'bad ns', sourceId: 's' })).toThrow(
      /not a valid namespace/,
    );
  });
});
