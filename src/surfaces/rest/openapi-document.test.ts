import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { lintOpenApi } from '../../../test/support/redocly-lint.js';
import { refHeavyTools } from '../../../test/support/ref-heavy-tools.js';
import { makeEntry, makeTool } from '../../../test/support/test-tools.js';
import { Catalog } from '../../catalog/catalog.js';
import { ToolScope } from '../../composition/tool-scope.js';
import { ToolSearch } from '../../discovery/tool-search.js';
import { RunPipeline } from '../../execution/run-pipeline.js';
import { SchemaValidator } from '../../foundation/schema/schema-validator.js';
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
  it('documents the management API behind the console, with 401/403 when auth is on', () => {
    const catalog = new Catalog();
    const document = openApiDocument(
      scopeWith(catalog),
      { name: 'gw', version: '1' },
      { apiKeys: true, jwt: false },
    )();
    const paths = document.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
    for (const path of [
      '/api/admin/session',
      '/api/admin/sources',
      '/api/admin/activity',
      '/api/admin/activity/stats',
      '/api/admin/config',
      '/api/admin/trust',
    ]) {
      expect(Object.keys(paths[path]?.get?.responses ?? {}), path).toEqual(
        expect.arrayContaining(['200', '401', '403']),
      );
    }
    expect(paths['/api/admin/sources/{name}/reconnect']?.post).toBeDefined();
    expect(paths['/api/admin/code']?.post).toBeDefined();
    expect(paths['/api/admin/trust/approve']?.post).toMatchObject({ requestBody: { required: true } });
  });

  it('is valid OpenAPI 3.1 even for tools with local $refs, which move to components', async () => {
    const catalog = new Catalog();
    catalog.replaceSource('s', [makeEntry(withDefs)]);
    const doc = openApiDocument(scopeWith(catalog), { name: 'gw', version: '1' })();
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
    const schema = (doc.paths as any)['/api/tools/geo:route'].post.requestBody.content['application/json']
      .schema;
    expect(schema.properties.from.$ref).toBe('#/components/schemas/geo__route__point');
    expect(schema.required).toEqual(['from', 'to']);
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

  it('lists the management route POST /api/admin/reload, with 401/403 when credentials are required', () => {
    const catalog = new Catalog();
    const open = openApiDocument(scopeWith(catalog), { name: 'gw', version: '1' })();
    const operation = (open.paths as any)['/api/admin/reload'].post;
    expect(operation.operationId).toBe('reloadConfig');
    expect(operation.responses).not.toHaveProperty('403');
    const secured = openApiDocument(
      scopeWith(catalog),
      { name: 'gw', version: '1' },
      { apiKeys: true, jwt: false },
    )();
    expect((secured.paths as any)['/api/admin/reload'].post.responses).toHaveProperty('403');
  });
});

describe('openApiDocument with the schemas real servers publish', () => {
  const documentOf = (auth?: { apiKeys: boolean; jwt: boolean }) => {
    const catalog = new Catalog();
    catalog.replaceSource(
      's',
      refHeavyTools().map((tool) => makeEntry(tool)),
    );
    return openApiDocument(scopeWith(catalog), { name: 'gw', version: '1' }, auth)();
  };

  it('passes redocly lint (recommended), every local $ref resolving, with no error and no warning but info-license', async () => {
    for (const auth of [undefined, { apiKeys: true, jwt: true }]) {
      // The API's license is not the gateway's to declare: the one warning accepted.
      const problems = (await lintOpenApi(documentOf(auth))).filter((p) => p.ruleId !== 'info-license');
      expect(problems, JSON.stringify(problems, null, 1)).toEqual([]);
    }
  });

  it('validates with swagger-parser, which dereferences every pointer', async () => {
    await expect(SwaggerParser.validate(structuredClone(documentOf()) as never)).resolves.toBeDefined();
  });

  it('points a moved reference at the same schema it named before the move', () => {
    const doc = documentOf() as any;
    const resolve = (ref: string) =>
      ref
        .slice(2)
        .split('/')
        .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
        .reduce((node, key) => node?.[key], doc);
    const op = (id: string) => doc.paths[`/api/tools/${id}`].post;
    const chase = (node: any): any => (node?.$ref ? chase(resolve(node.$ref)) : node);
    const input = (id: string) => chase(op(id).requestBody.content['application/json'].schema);
    const thinking = input('sequential-thinking:sequentialthinking');
    expect(resolve(thinking.properties.isRevision.$ref)).toEqual({
      type: 'boolean',
      description: 'Whether another thought step is needed',
    });
    const route = input('geo:route');
    expect(resolve(route.properties.from.$ref).properties.lat).toEqual({ type: 'number' });
    expect(resolve(route.properties.lat.$ref)).toEqual({ type: 'number' });
    expect(resolve(route.properties.odd.$ref).enum).toEqual(['x', 'y']);
    expect(resolve(route.properties.pinned.$ref).type).toBe('string');
    // The output's own `point` is another schema than the input's.
    const output = op('geo:route').responses['200'].content['application/json'].schema.properties.result;
    const start = chase(output.properties.structuredContent).properties.start;
    expect(resolve(start.$ref).type).toBe('array');
    const tree = input('files:tree');
    expect(resolve(tree.properties.children.items.$ref)).toBe(tree);
    const filter = resolve(tree.properties.filter.$ref);
    expect(resolve(filter.properties.not.$ref)).toBe(filter);
    expect(input('zod:args').properties.n.default).toBe(3);
    const broken = input('broken:refs');
    expect(broken.properties.missing).not.toHaveProperty('$ref');
    expect(broken.properties.remote).not.toHaveProperty('$ref');
    expect(broken.properties.fine.examples).toEqual(['#/$defs/nothing']);
  });

  it('declares the server, the security schemes when auth is on, and the 4xx each operation returns', () => {
    const open = documentOf() as any;
    expect(open.servers).toEqual([{ url: '/', description: expect.any(String) }]);
    expect(open.security).toEqual([]);
    expect(open.components).not.toHaveProperty('securitySchemes');
    const run = open.paths['/api/tools/memory:create_entities'].post.responses;
    expect(Object.keys(run)).toEqual(expect.arrayContaining(['200', '400', '404', '413', '415', 'default']));
    expect(run).not.toHaveProperty('401');
    const secured = documentOf({ apiKeys: true, jwt: false }) as any;
    expect(secured.security).toEqual([{ bearer: [] }, { apiKey: [] }]);
    expect(Object.keys(secured.components.securitySchemes)).toEqual(['bearer', 'apiKey']);
    const securedRun = secured.paths['/api/tools/memory:create_entities'].post.responses;
    expect(Object.keys(securedRun)).toEqual(expect.arrayContaining(['401', '403']));
    const list = secured.paths['/api/tools'].get.responses;
    expect(Object.keys(list)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404']));
    expect(list).not.toHaveProperty('415');
    expect(run).not.toHaveProperty('429');
    const catalog = new Catalog();
    catalog.replaceSource('s', [makeEntry(makeTool('a:one'))]);
    const limited = openApiDocument(scopeWith(catalog), { name: 'gw', version: '1' }, undefined, {
      rateLimited: true,
    })() as any;
    expect(limited.paths['/api/tools/a:one'].post.responses['429']).toEqual({
      $ref: '#/components/responses/E429',
    });
    expect(limited.components.responses.E429.description).toContain('rate_limited');
    expect(limited.paths['/api/tools'].get.responses).not.toHaveProperty('429');
  });
});
