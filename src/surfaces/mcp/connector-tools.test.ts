import { describe, expect, it } from 'vitest';
import { surfaceContext } from '../../../test/support/surface-context.js';
import { makeEntry, makeTool } from '../../../test/support/test-tools.js';
import { Catalog } from '../../catalog/catalog.js';
import { ToolScope } from '../../composition/tool-scope.js';
import { ToolSearch } from '../../discovery/tool-search.js';
import { RunPipeline } from '../../execution/run-pipeline.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { Tool } from '../../foundation/model/tool.js';
import { SchemaValidator } from '../../foundation/schema/schema-validator.js';
import { restRoutes } from '../rest/rest-routes.js';
import { CONNECTOR_SEARCH_LIMIT, connectorTools } from './connector-tools.js';
import { isPassThrough, type Metatool } from './metatool.js';

const BASE = 'https://gw.example.com';

const tools: Tool[] = [
  makeTool('plantuml:encode', {
    title: 'Encode PlantUML',
    description: 'Encode PlantUML diagram source into the compressed form used in diagram URLs',
    inputSchema: {
      type: 'object',
      properties: { source: { type: 'string', description: 'PlantUML diagram source' } },
      required: ['source'],
    },
    outputSchema: { type: 'object', properties: { encoded: { type: 'string' } } },
    annotations: { readOnlyHint: true },
    tags: ['diagram'],
  }),
  makeTool('plantuml:decode', {
    description: 'Decode an encoded PlantUML diagram back to its source',
    inputSchema: { type: 'object', properties: { encoded: { type: 'string' } } },
  }),
  makeTool('time:now', {
    description: 'Current date and time in a timezone',
    inputSchema: { type: 'object', properties: { timezone: { type: 'string' } } },
    annotations: { title: 'Current time' },
  }),
  makeTool('secret:vault_read', { description: 'Read a secret diagram from the vault' }),
];

function setup(isVisible?: (tool: Tool) => boolean, extra: Tool[] = []) {
  const catalog = new Catalog();
  const entries = [...tools, ...extra].map((t) => makeEntry(t));
  catalog.replaceSource('s', entries);
  const pipeline = new RunPipeline({ catalog, validator: new SchemaValidator() });
  const deps = { catalog, search: new ToolSearch(catalog), pipeline, maxChainSteps: 5 };
  const scope = new ToolScope(deps, isVisible ? { isVisible } : {});
  const [search, fetch] = connectorTools(() => `${BASE}/`) as [Metatool, Metatool];
  const ctx = { scope, call: { caller: { identity: 'test' } } };
  /** Calls a connector tool and checks the result is one JSON text block equal to structuredContent. */
  const call = async (tool: Metatool, args: Record<string, unknown>) => {
    const value = await tool.handler(args, ctx);
    if (!isPassThrough(value)) throw new Error('expected a pass-through result');
    const { content, structuredContent, isError } = value.passThrough;
    expect(isError).toBeUndefined();
    expect(content).toHaveLength(1);
    expect(content[0]?.type).toBe('text');
    const parsed = JSON.parse((content[0] as { text: string }).text);
    expect(parsed).toEqual(structuredContent);
    return parsed;
  };
  return { scope, search, fetch, call };
}

describe('connectorTools', () => {
  it('are named search and fetch, take one string each and are read-only', () => {
    const [search, fetch] = connectorTools(() => BASE);
    expect(search?.name).toBe('search');
    expect(search?.inputSchema).toMatchObject({
      required: ['query'],
      properties: { query: { type: 'string' } },
    });
    expect(fetch?.name).toBe('fetch');
    expect(fetch?.inputSchema).toMatchObject({ required: ['id'], properties: { id: { type: 'string' } } });
    for (const tool of [search, fetch]) {
      expect(tool?.annotations.readOnlyHint).toBe(true);
      expect(tool?.annotations.destructiveHint).toBe(false);
      expect(tool?.requires).toBeUndefined();
    }
  });

  describe('search', () => {
    it('returns the relevant tool ids, best first, as { results: [{ id, title, url }] }', async () => {
      const { search, call } = setup();
      const { results } = await call(search, { query: 'encode a plantuml diagram' });
      expect(results[0]).toEqual({
        id: 'plantuml:encode',
        title: 'Encode PlantUML',
        url: `${BASE}/api/tools/plantuml%3Aencode`,
      });
      expect(results.map((r: { id: string }) => r.id)).not.toContain('time:now');
      for (const result of results) expect(Object.keys(result).sort()).toEqual(['id', 'title', 'url']);
    });

    it('titles a tool by its title, else its annotations title, else its name', async () => {
      const { search, call } = setup();
      const { results } = await call(search, { query: '' });
      const titles = Object.fromEntries(results.map((r: { id: string; title: string }) => [r.id, r.title]));
      expect(titles).toEqual({
        'plantuml:decode': 'decode',
        'plantuml:encode': 'Encode PlantUML',
        'secret:vault_read': 'vault_read',
        'time:now': 'Current time',
      });
    });

    it('lists the first tools by id for an empty query, at most the limit', async () => {
      const many = Array.from({ length: 15 }, (_, i) => makeTool(`zz:t${String(i).padStart(2, '0')}`));
      const { search, call } = setup(undefined, many);
      const { results } = await call(search, { query: '   ' });
      expect(results).toHaveLength(CONNECTOR_SEARCH_LIMIT);
      expect(results.slice(0, 4).map((r: { id: string }) => r.id)).toEqual([
        'plantuml:decode',
        'plantuml:encode',
        'secret:vault_read',
        'time:now',
      ]);
    });

    it('returns an empty list when nothing matches', async () => {
      const { search, call } = setup();
      expect(await call(search, { query: 'xylophone quasar' })).toEqual({ results: [] });
    });

    it('finds only what the scope can see', async () => {
      const { search, call } = setup((t) => t.namespace !== 'secret');
      const { results } = await call(search, { query: 'secret vault diagram' });
      expect(results.map((r: { id: string }) => r.id)).not.toContain('secret:vault_read');
    });
  });

  describe('fetch', () => {
    it('returns { id, title, text, url, metadata } with the schemas in the text', async () => {
      const { fetch, call } = setup();
      const doc = await call(fetch, { id: 'plantuml:encode' });
      expect(Object.keys(doc).sort()).toEqual(['id', 'metadata', 'text', 'title', 'url']);
      expect(doc.id).toBe('plantuml:encode');
      expect(doc.title).toBe('Encode PlantUML');
      expect(doc.url).toBe(`${BASE}/api/tools/plantuml%3Aencode`);
      expect(doc.metadata).toEqual({
        namespace: 'plantuml',
        tags: ['diagram'],
        annotations: { readOnlyHint: true },
      });
      const text: string = doc.text;
      expect(text).toContain('Encode PlantUML diagram source into the compressed form');
      expect(text).toContain(`Input schema:\n${JSON.stringify(tools[0]?.inputSchema, null, 2)}`);
      expect(text).toContain(`Output schema:\n${JSON.stringify(tools[0]?.outputSchema, null, 2)}`);
      // Description first, then the input schema, then the output schema.
      expect(text.indexOf('Encode PlantUML diagram')).toBeLessThan(text.indexOf('Input schema:'));
      expect(text.indexOf('Input schema:')).toBeLessThan(text.indexOf('Output schema:'));
    });

    it('leaves the output schema out of the text when the tool has none', async () => {
      const { fetch, call } = setup();
      const doc = await call(fetch, { id: 'time:now' });
      expect(doc.text).toContain('"timezone"');
      expect(doc.text).not.toContain('Output schema');
    });

    it('fails with tool_not_found for an unknown, malformed or out-of-scope id', async () => {
      const { fetch, scope } = setup((t) => t.namespace !== 'secret');
      const ctx = { scope, call: { caller: { identity: 'test' } } };
      for (const id of ['plantuml:nope', 'not an id', 'secret:vault_read']) {
        const failure = await fetch.handler({ id }, ctx).catch((error: unknown) => error);
        expect(failure).toBeInstanceOf(GatewayError);
        expect((failure as GatewayError).code).toBe('tool_not_found');
      }
    });
  });

  it("gives urls the REST API answers with the tool's description", async () => {
    const { search, call, scope } = setup();
    const { results } = await call(search, { query: 'current time' });
    const url = new URL(results[0].url);
    const rest = restRoutes(surfaceContext(scope, { maxBodyBytes: 1024 }));
    const res = await rest.request(url.pathname);
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).tool.id).toBe('time:now');
  });
});
