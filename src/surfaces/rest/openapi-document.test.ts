import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { makeEntry, makeTool } from '../../../test/support/test-tools.js';
import { Catalog } from '../../catalog/catalog.js';
import { ToolScope } from '../../composition/tool-scope.js';
import { ToolSearch } from '../../discovery/tool-search.js';
import { RunPipeline } from '../../execution/run-pipeline.js';
import { SchemaValidator } from '../../foundation/schema-validator.js';
import { openApiDocument } from './openapi-document.js';

function scopeWith(catalog: Catalog): ToolScope {
  const pipeline = new RunPipeline({ catalog, validator: new SchemaValidator() });
  return new ToolScope({ catalog, search: new ToolSearch(catalog), pipeline, maxChainSteps: 5 });
}

const withDefs = makeTool('geo:route', {
  inputSchema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { from: { $ref: '#/$defs/point' }, to: { $ref: '#/$defs/point' } },
    required: ['from', 'to'],
    $defs: { point: { type: 'object', properties: { lat: { type: 'number' }, lon: { type: 'number' } } } },
  },
  outputSchema: { type: 'object', properties: { km: { type: 'number' } } },
});

describe('openApiDocument', () => {
  it('is valid OpenAPI 3.1 even for tools with local $refs, which move to components', async () => {
    const catalog = new Catalog();
    catalog.replaceSource('s', [makeEntry(withDefs)]);
    const doc = openApiDocument(scopeWith(catalog), { name: 'gw', version: '1' })();
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
    const schema = (doc.paths as any)['/api/tools/geo:route'].post.requestBody.content['application/json']
      .schema;
    expect(schema.properties.from.$ref).toBe('#/components/schemas/geo__route__point');
    expect(schema).not.toHaveProperty('$schema');
    expect((doc.components as any).schemas.geo__route__point.properties.lat.type).toBe('number');
  });

  it('is regenerated when the catalog changes, and cached while it does not', () => {
    const catalog = new Catalog();
    catalog.replaceSource('s', [makeEntry(makeTool('a:one'))]);
    const document = openApiDocument(scopeWith(catalog), { name: 'gw', version: '1' });
    const first = document();
    expect(document()).toBe(first);
    catalog.upsert('s', makeEntry(makeTool('a:two')));
    const second = document();
    expect(second).not.toBe(first);
    expect(Object.keys(second.paths as object)).toContain('/api/tools/a:two');
  });
});
