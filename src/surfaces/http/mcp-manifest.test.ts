import { describe, expect, it } from 'vitest';
import { surfaceContext } from '../../../test/support/surface-context.js';
import { makeEntry, makeTool } from '../../../test/support/test-tools.js';
import { Catalog } from '../../catalog/catalog.js';
import { ToolScope } from '../../composition/tool-scope.js';
import { ToolSearch } from '../../discovery/tool-search.js';
import { RunPipeline } from '../../execution/run-pipeline.js';
import { flatToolName } from '../../foundation/model/flat-name.js';
import type { Tool } from '../../foundation/model/tool.js';
import { SchemaValidator } from '../../foundation/schema/schema-validator.js';
import { MCP_MANIFEST_PATH, manifestRoutes, mcpManifest } from './mcp-manifest.js';

const flatName = (tool: Tool) => flatToolName(tool.namespace, tool.name);
const info = { name: 'gw', version: '1.2.3' };

function scopeWith(catalog: Catalog, isVisible?: (tool: Tool) => boolean): ToolScope {
  const pipeline = new RunPipeline({ catalog, validator: new SchemaValidator() });
  const deps = { catalog, search: new ToolSearch(catalog), pipeline, maxChainSteps: 5 };
  return new ToolScope(deps, isVisible ? { isVisible } : {});
}

const encode = makeTool('plantuml:encode', {
  title: 'Encode',
  description: 'Encode PlantUML source',
  inputSchema: { type: 'object', properties: { source: { type: 'string' } }, required: ['source'] },
  outputSchema: { type: 'object', properties: { encoded: { type: 'string' } } },
  annotations: { readOnlyHint: true },
});
const now = makeTool('time:now', { description: 'Current time' });

describe('mcpManifest', () => {
  it('lists the gateway, its endpoint and every tool with schemas, in id order', () => {
    const catalog = new Catalog();
    catalog.replaceSource('s', [makeEntry(now), makeEntry(encode)]);
    const manifest = mcpManifest({
      scope: scopeWith(catalog),
      info: { ...info, description: 'My gateway' },
      endpointUrl: 'http://127.0.0.1:8080/mcp',
      flatName,
    });
    expect(manifest).toEqual({
      name: 'gw',
      version: '1.2.3',
      description: 'My gateway',
      endpoint: { url: 'http://127.0.0.1:8080/mcp', transport: 'streamable-http' },
      toolCount: 2,
      tools: [
        {
          id: 'plantuml:encode',
          name: 'plantuml__encode',
          title: 'Encode',
          description: 'Encode PlantUML source',
          inputSchema: encode.inputSchema,
          outputSchema: encode.outputSchema,
          annotations: { readOnlyHint: true },
        },
        {
          id: 'time:now',
          name: 'time__now',
          description: 'Current time',
          inputSchema: { type: 'object' },
          annotations: {},
        },
      ],
    });
    // Optional fields are left out, not set to undefined (they would vanish from the JSON anyway).
    expect(manifest.tools[1]).not.toHaveProperty('title');
    expect(manifest.tools[1]).not.toHaveProperty('outputSchema');
  });

  it('defaults the description from the name', () => {
    const manifest = mcpManifest({ scope: scopeWith(new Catalog()), info, endpointUrl: 'x', flatName });
    expect(manifest.description).toBe('gw tool gateway');
    expect(manifest.toolCount).toBe(0);
    expect(manifest.tools).toEqual([]);
  });

  it('shows tools as the catalog holds them (overrides applied), and only those the scope can see', () => {
    // The catalog stores tools with overrides already applied: a renamed tool has its new id and name.
    const renamed = makeTool('plantuml:to_url', {
      title: 'PlantUML to URL',
      description: 'Overridden',
      origin: { sourceId: 's', kind: 'local', originalName: 'encode' },
    });
    const catalog = new Catalog();
    catalog.replaceSource('s', [makeEntry(renamed), makeEntry(now), makeEntry(makeTool('secret:read'))]);
    const scope = scopeWith(catalog, (t) => t.namespace === 'plantuml');
    const manifest = mcpManifest({ scope, info, endpointUrl: 'x', flatName });
    expect(manifest.toolCount).toBe(1);
    expect(manifest.tools.map((t) => [t.id, t.name, t.title, t.description])).toEqual([
      ['plantuml:to_url', 'plantuml__to_url', 'PlantUML to URL', 'Overridden'],
    ]);
  });

  it('names tools with the flatName it is given', () => {
    const catalog = new Catalog();
    catalog.replaceSource('s', [makeEntry(encode)]);
    const manifest = mcpManifest({
      scope: scopeWith(catalog),
      info,
      endpointUrl: 'x',
      flatName: (t) => flatToolName(t.namespace, t.name, { prefix: false }),
    });
    expect(manifest.tools[0]?.name).toBe('encode');
  });
});

describe('manifestRoutes', () => {
  function served() {
    const catalog = new Catalog();
    catalog.replaceSource('s', [makeEntry(encode)]);
    let baseUrl = 'http://127.0.0.1:8080';
    const app = manifestRoutes(surfaceContext(scopeWith(catalog), { info, baseUrl: () => baseUrl }), {
      flatName,
    });
    return { app, catalog, setBaseUrl: (url: string) => (baseUrl = url) };
  }

  it('serves the manifest as JSON, never cached without revalidation', async () => {
    const { app } = served();
    const res = await app.request(MCP_MANIFEST_PATH);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const body = JSON.parse(await res.text());
    expect(body.endpoint).toEqual({ url: 'http://127.0.0.1:8080/mcp', transport: 'streamable-http' });
    expect(body.tools.map((t: { id: string }) => t.id)).toEqual(['plantuml:encode']);
    expect(body.toolCount).toBe(1);
  });

  it('follows the endpoint URL and the catalog, per request', async () => {
    const { app, catalog, setBaseUrl } = served();
    const first = (await (await app.request(MCP_MANIFEST_PATH)).json()) as any;
    setBaseUrl('http://127.0.0.1:9999');
    catalog.upsert('s', makeEntry(now));
    const second = (await (await app.request(MCP_MANIFEST_PATH)).json()) as any;
    expect(first.toolCount).toBe(1);
    expect(second.endpoint.url).toBe('http://127.0.0.1:9999/mcp');
    expect(second.tools.map((t: { id: string }) => t.id)).toEqual(['plantuml:encode', 'time:now']);
  });

  it('answers a matching If-None-Match with 304, and changes its ETag with the catalog', async () => {
    const { app, catalog } = served();
    const etag = (await app.request(MCP_MANIFEST_PATH)).headers.get('etag')!;
    expect(etag).toMatch(/^W\/"[0-9a-f]{16}"$/);
    const again = await app.request(MCP_MANIFEST_PATH, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    catalog.upsert('s', makeEntry(now));
    const changed = await app.request(MCP_MANIFEST_PATH, { headers: { 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
  });

  it('answers HEAD like GET without a body, and other methods with 405', async () => {
    const { app } = served();
    const head = await app.request(MCP_MANIFEST_PATH, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('application/json');
    expect(await head.text()).toBe('');
    const post = await app.request(MCP_MANIFEST_PATH, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect(((await post.json()) as any).error.code).toBe('method_not_allowed');
  });
});
