import { describe, expect, it } from 'vitest';
import { surfaceContext } from '../../../test/support/surface-context.js';
import { makeEntry, makeTool } from '../../../test/support/test-tools.js';
import { Catalog } from '../../catalog/catalog.js';
import { ToolScope } from '../../composition/tool-scope.js';
import { ToolSearch } from '../../discovery/tool-search.js';
import { RunPipeline } from '../../execution/run-pipeline.js';
import { SchemaValidator } from '../../foundation/schema-validator.js';
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
