import { describe, expect, it } from 'vitest';
import { surfaceContext } from '../../../test/support/surface-context.js';
import { makeEntry, makeTool } from '../../../test/support/test-tools.js';
import { Catalog } from '../../catalog/catalog.js';
import { ToolScope } from '../../composition/tool-scope.js';
import { ToolSearch } from '../../discovery/tool-search.js';
import { RunPipeline } from '../../execution/run-pipeline.js';
import { SchemaValidator } from '../../foundation/schema/schema-validator.js';
import { restRoutes } from './rest-routes.js';

const LONG =
  'Fetch a web page and return its main text. It follows redirects, strips scripts and styles, ' +
  'converts tables to Markdown and gives up on pages larger than ten megabytes.';

describe('GET /api/tools', () => {
  it('answers compact summaries: descriptions trimmed by descriptionChars, first sentence whole, no schemas', async () => {
    const catalog = new Catalog();
    const tool = makeTool('web:fetch', {
      description: LONG,
      inputSchema: { type: 'object', properties: { url: { type: 'string' } } },
    });
    catalog.replaceSource('s', [makeEntry(tool)]);
    const pipeline = new RunPipeline({ catalog, validator: new SchemaValidator() });
    const scope = new ToolScope({
      catalog,
      search: new ToolSearch(catalog),
      pipeline,
      maxChainSteps: 5,
      descriptionChars: 60,
    });
    const rest = restRoutes(surfaceContext(scope));
    for (const path of ['/api/tools', '/api/tools?q=fetch%20page']) {
      const res = await rest.request(path);
      expect(res.status).toBe(200);
      const [item] = ((await res.json()) as { tools: Record<string, unknown>[] }).tools;
      expect(item?.description, path).toBe('Fetch a web page and return its main text. It follows…');
      expect(item, path).not.toHaveProperty('inputSchema');
    }
  });
});

describe('search explanations', () => {
  function rest() {
    const catalog = new Catalog();
    catalog.replaceSource('s', [
      makeEntry(makeTool('web:fetch', { description: 'Fetch a web page.' })),
      makeEntry(makeTool('web:search', { description: 'Search the web.' })),
      makeEntry(makeTool('fs:read_file', { description: 'Read a file.' })),
    ]);
    const pipeline = new RunPipeline({ catalog, validator: new SchemaValidator() });
    const scope = new ToolScope({ catalog, search: new ToolSearch(catalog), pipeline, maxChainSteps: 5 });
    return restRoutes(surfaceContext(scope));
  }
  type Item = { id: string; score: number; explanation?: Record<string, any> };
  const items = async (res: Response) => ((await res.json()) as { tools: Item[] }).tools;

  it('GET /api/tools?q=…&explain=true and POST /api/search {explain: true} explain each result', async () => {
    const app = rest();
    const viaGet = await items(await app.request('/api/tools?q=fetch%20a%20page&explain=true'));
    const viaPost = await items(
      await app.request('/api/search', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'fetch a page', explain: true }),
      }),
    );
    expect(viaPost).toEqual(viaGet);
    const [first] = viaGet;
    expect(first).toMatchObject({
      id: 'web:fetch',
      explanation: {
        score: first!.score,
        strategy: 'bm25',
        lexical: {
          rank: 1,
          terms: { fetch: { name: expect.any(Number) }, page: { description: expect.any(Number) } },
        },
        server: { namespace: 'web', score: 1, factor: 1.5 },
      },
    });
  });

  it('explains nothing unless asked', async () => {
    const app = rest();
    for (const path of [
      '/api/tools?q=fetch',
      '/api/tools?q=fetch&explain=false',
      '/api/tools?explain=true',
    ]) {
      const list = await items(await app.request(path));
      expect(list.length, path).toBeGreaterThan(0);
      expect(
        list.every((item) => item.explanation === undefined),
        path,
      ).toBe(true);
    }
  });

  it('answers a bad explain value with 400 validation_input', async () => {
    const app = rest();
    const viaGet = await app.request('/api/tools?q=fetch&explain=yes');
    const viaPost = await app.request('/api/search', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'fetch', explain: 'yes' }),
    });
    for (const res of [viaGet, viaPost]) {
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ success: false, error: { code: 'validation_input' } });
    }
  });
});
