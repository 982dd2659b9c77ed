import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { refHeavyTools } from '../../../test/support/ref-heavy-tools.js';
import { GatewayError } from '../model/gateway-error.js';
import type { JsonSchema, Tool } from '../model/tool.js';
import { localRefPointer, refsOf } from '../schema/schema-refs.js';
import { fromAnthropicTool } from './anthropic-adapter.js';
import { fromGeminiTool } from './gemini-adapter.js';
import { fromMcpTool, type McpToolEntry } from './mcp-adapter.js';
import { fromOpenAITool } from './openai-adapter.js';
import { buildNameMap } from './provider-names.js';
import {
  type ExportOptions,
  exportTools,
  formatTool,
  TOOL_FORMATS,
  type ToolFormat,
} from './tool-formats.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../../test/fixtures/adapters');
const read = (file: string): unknown => JSON.parse(readFileSync(path.join(FIXTURES, file), 'utf8'));
const TOOLS = read('tools.json') as Tool[];
const byId = (id: string): Tool => TOOLS.find((t) => t.id === id) as Tool;

/** Golden file → the export it pins. The files were written once and reviewed by hand. */
const GOLDEN: Record<string, [ToolFormat, ExportOptions]> = {
  'mcp.json': ['mcp', {}],
  'openai.json': ['openai', {}],
  'openai-strict.json': ['openai', { strict: true }],
  'openai-responses.json': ['openai-responses', { strict: true }],
  'anthropic.json': ['anthropic', {}],
  'gemini.json': ['gemini', {}],
  'a2a.json': ['a2a', {}],
};

describe('exportTools golden files', () => {
  for (const [file, [format, options]] of Object.entries(GOLDEN)) {
    it(`${file}: ${format}${options.strict ? ' strict' : ''} output and warnings match exactly`, () => {
      expect(exportTools(TOOLS, format, options)).toEqual(read(file));
    });
  }
});

/** The fields a round trip through a provider format must preserve. */
function contract(tool: Tool, fields: (keyof Tool)[]): Partial<Tool> {
  return Object.fromEntries(fields.map((field) => [field, tool[field]]));
}

describe('round trips', () => {
  const names = buildNameMap(TOOLS);
  const options = (tool: Tool) => ({ namespace: tool.namespace, sourceId: tool.origin.sourceId, names });
  // kv:put has a root anyOf, which OpenAI, Anthropic and Gemini cannot take; system:ping has no
  // properties, which OpenAI and Gemini spell differently.
  const objectRooted = TOOLS.filter((t) => t.id !== 'kv:put' && t.id !== 'system:ping');

  it('MCP keeps id, title, description, both schemas and annotations of every tool', () => {
    const exported = exportTools(TOOLS, 'mcp').value as { tools: unknown[] };
    exported.tools.forEach((entry, i) => {
      const tool = TOOLS[i] as Tool;
      const back = fromMcpTool(entry, { ...options(tool), kind: tool.origin.kind });
      const fields: (keyof Tool)[] = ['id', 'namespace', 'name', 'version', 'title', 'description'];
      expect(contract(back.value, fields)).toEqual(contract(tool, fields));
      expect(back.value.inputSchema).toEqual(tool.inputSchema);
      expect(back.value.outputSchema).toEqual(tool.outputSchema);
      expect(back.value.annotations).toEqual(tool.annotations);
      expect(back.value.origin).toEqual({ ...tool.origin, originalName: (entry as McpToolEntry).name });
      expect(back.warnings).toEqual([]);
    });
  });

  it('Anthropic and OpenAI (non-strict) keep id, description and input schema', () => {
    const anthropic = exportTools(objectRooted, 'anthropic').value as unknown[];
    const openai = exportTools(objectRooted, 'openai').value as unknown[];
    const responses = exportTools(objectRooted, 'openai-responses').value as unknown[];
    objectRooted.forEach((tool, i) => {
      const fields: (keyof Tool)[] = ['id', 'namespace', 'name', 'version', 'description', 'inputSchema'];
      expect(contract(fromAnthropicTool(anthropic[i], options(tool)).value, fields)).toEqual(
        contract(tool, fields),
      );
      // OpenAI truncates descriptions past 1024 characters; the schema must survive either way.
      const viaChat = fromOpenAITool(openai[i], options(tool)).value;
      const viaResponses = fromOpenAITool(responses[i], options(tool)).value;
      for (const back of [viaChat, viaResponses]) {
        expect(back.id).toBe(tool.id);
        expect(back.inputSchema).toEqual(tool.inputSchema);
        expect(tool.description.startsWith(back.description.replace(/…$/, ''))).toBe(true);
      }
    });
  });

  it('Gemini keeps schemas inside its subset (types, nullable, string enums, bounds, nesting)', () => {
    const inSubset: Tool = {
      ...byId('docs:search'),
      outputSchema: {
        type: 'object',
        properties: {
          results: {
            type: 'array',
            maxItems: 50,
            items: {
              type: 'object',
              properties: { title: { type: 'string' }, score: { type: 'number', minimum: 0, maximum: 1 } },
              required: ['title'],
            },
          },
        },
        required: ['results'],
      },
    };
    const exported = exportTools([inSubset, byId('i18n:résumé.parse')], 'gemini');
    expect(exported.warnings).toEqual([]);
    const back = fromGeminiTool(exported.value, {
      namespace: 'x',
      sourceId: 'x',
      names: buildNameMap([inSubset, byId('i18n:résumé.parse')]),
    });
    expect(back.warnings).toEqual([]);
    expect(back.value.map((t) => t.id)).toEqual(['docs:search', 'i18n:résumé.parse']);
    expect(back.value[0]?.inputSchema).toEqual(inSubset.inputSchema);
    expect(back.value[0]?.outputSchema).toEqual(inSubset.outputSchema);
    expect(back.value[1]?.inputSchema).toEqual(byId('i18n:résumé.parse').inputSchema);
  });
});

describe('formatTool', () => {
  it('gives one entry of the list, named on its own', () => {
    const tool = byId('weather:forecast');
    expect(formatTool(tool, 'anthropic').value).toEqual(
      (read('anthropic.json') as { value: unknown[] }).value[0],
    );
    expect(formatTool(tool, 'gemini').value).toMatchObject({
      name: 'weather__forecast',
      parameters: { type: 'OBJECT' },
    });
    expect(formatTool(tool, 'a2a').value).toMatchObject({ id: 'weather:forecast' });
    expect(formatTool(tool, 'mcp', { name: 'forecast' }).value).toMatchObject({ name: 'forecast' });
    expect(formatTool(tool, 'openai', { strict: true }).value).toMatchObject({ function: { strict: true } });
  });

  it('a version of a tool exported alone keeps its plain flat name', () => {
    expect(formatTool(byId('files:read:2'), 'openai').value).toMatchObject({
      function: { name: 'files__read' },
    });
  });
});

describe('invalid input', () => {
  it('an unknown format is invalid_request', () => {
    expect(() => exportTools(TOOLS, 'yaml' as ToolFormat)).toThrow(GatewayError);
    expect(() => formatTool(byId('kv:put'), 'xml' as ToolFormat)).toThrow(/Unknown tool format "xml"/);
  });

  it('something that is not a tool is invalid_request, a lossy one only warns', () => {
    for (const bad of [null, 42, {}, { id: 'a:b', namespace: 'a', name: 'b', description: 'x' }]) {
      try {
        exportTools([bad as Tool], 'openai');
        expect.unreachable();
      } catch (error) {
        expect((error as GatewayError).code).toBe('invalid_request');
      }
    }
    expect(() => exportTools(TOOLS, 'gemini')).not.toThrow();
  });

  it('exports an empty catalog as an empty list in every format', () => {
    expect(exportTools([], 'mcp').value).toEqual({ tools: [] });
    expect(exportTools([], 'gemini').value).toEqual({ functionDeclarations: [] });
    expect(exportTools([], 'openai').value).toEqual([]);
  });
});

describe('exportTools with the local $refs real servers publish', () => {
  /** The schemas of one exported entry, each a document of its own its `$ref`s resolve in. */
  const schemaRoots = (entry: any): unknown[] =>
    [
      entry.inputSchema,
      entry.outputSchema,
      entry.input_schema,
      entry.parameters,
      entry.function?.parameters,
      entry.response,
    ].filter((s) => s !== undefined);

  it('keeps every reference that resolved in the tool resolvable where the schema went', () => {
    const tools = refHeavyTools();
    for (const format of TOOL_FORMATS) {
      for (const strict of [false, true]) {
        const { value } = exportTools(tools, format, { strict });
        const entries: any[] =
          format === 'mcp'
            ? (value as any).tools
            : format === 'gemini'
              ? (value as any).functionDeclarations
              : (value as any);
        for (const [i, entry] of entries.entries()) {
          const original = tools[i];
          if (original?.id === 'broken:refs') continue; // resolved nowhere in the first place
          for (const root of schemaRoots(entry)) {
            for (const ref of refsOf(root)) {
              expect(
                localRefPointer(root as JsonSchema, ref),
                `${format} ${original?.id} ${ref}`,
              ).toBeDefined();
            }
          }
        }
      }
    }
  });
});
