import { describe, expect, it } from 'vitest';
import { makeEntry, makeTool } from '../../test/support/test-tools.js';
import { Catalog } from '../catalog/catalog.js';
import { ToolSearch } from '../discovery/tool-search.js';
import { RunPipeline } from '../execution/run-pipeline.js';
import { SchemaValidator } from '../foundation/schema/schema-validator.js';
import { ToolScope } from './tool-scope.js';

const LONG =
  'Fetch a web page and return its main text. It follows redirects, strips scripts and styles, ' +
  'converts tables to Markdown and gives up on pages larger than ten megabytes.';

function scope(descriptionChars?: number): ToolScope {
  const catalog = new Catalog();
  catalog.replaceSource('s', [makeEntry(makeTool('web:fetch', { description: LONG }))]);
  const pipeline = new RunPipeline({ catalog, validator: new SchemaValidator() });
  return new ToolScope({
    catalog,
    search: new ToolSearch(catalog),
    pipeline,
    maxChainSteps: 5,
    ...(descriptionChars !== undefined ? { descriptionChars } : {}),
  });
}

describe('ToolScope: compact items', () => {
  it('trims search and list descriptions to descriptionChars, first sentence whole, no schemas', async () => {
    const s = scope(60);
    const [hit] = (await s.search({ query: 'fetch web page' })).tools;
    const [listed] = s.list().tools;
    for (const item of [hit, listed]) {
      expect(item?.description).toBe('Fetch a web page and return its main text. It follows…');
      expect(item && 'inputSchema' in item).toBe(false);
    }
  });

  it('trims to 160 characters by default', () => {
    const [listed] = scope().list().tools;
    expect(LONG.length).toBeGreaterThan(160);
    expect(listed?.description.length).toBeLessThanOrEqual(160);
    expect(listed?.description.endsWith('…')).toBe(true);
  });
});
