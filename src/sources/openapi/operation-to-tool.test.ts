import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../foundation/ports/logger.js';
import type { HttpMethod } from './openapi-document.js';
import { loadOpenApiSource } from './openapi-source.js';
import { OperationFilter } from './operation-filter.js';
import { annotationsFor, operationToolName } from './operation-to-tool.js';

const op = (method: HttpMethod, p: string, operationId?: string) => ({
  method,
  path: p,
  operation: operationId === undefined ? {} : { operationId },
});

describe('operationToolName', () => {
  it.each([
    [op('get', '/pets/{petId}', 'getPet'), 'getPet'],
    [op('get', '/pets/{petId}', 'pets.get by-id!'), 'pets_get_by-id'],
    [op('get', '/pets/{petId}'), 'get_pets_petId'],
    [op('post', '/v1/store/order/'), 'post_v1_store_order'],
    [op('get', '/', '***'), 'get'],
  ])('%j → %s', (info, name) => {
    expect(operationToolName(info)).toBe(name);
  });
});

describe('annotationsFor', () => {
  it.each([
    ['get', { readOnlyHint: true, idempotentHint: true, openWorldHint: true }],
    ['head', { readOnlyHint: true, idempotentHint: true, openWorldHint: true }],
    ['put', { readOnlyHint: false, idempotentHint: true, destructiveHint: false, openWorldHint: true }],
    ['delete', { readOnlyHint: false, idempotentHint: true, destructiveHint: true, openWorldHint: true }],
    ['post', { readOnlyHint: false, idempotentHint: false, destructiveHint: false, openWorldHint: true }],
    ['patch', { readOnlyHint: false, idempotentHint: false, destructiveHint: false, openWorldHint: true }],
  ] as const)('%s', (method, annotations) => {
    expect(annotationsFor(method)).toEqual(annotations);
  });
});

describe('OperationFilter', () => {
  it('matches operationId, tool name or METHOD /path with * globs', () => {
    const filter = new OperationFilter(['getPet', 'get_orders*', 'post /pets', '* /admin/*', 'nothing*']);
    expect(filter.accepts(op('get', '/pets/{id}', 'getPet'))).toBe(true);
    expect(filter.accepts(op('get', '/orders/{id}'))).toBe(true);
    expect(filter.accepts(op('post', '/pets', 'addPet'))).toBe(true);
    expect(filter.accepts(op('delete', '/admin/users/{id}', 'dropUser'))).toBe(true);
    expect(filter.accepts(op('put', '/pets', 'updatePet'))).toBe(false);
    expect(filter.accepts(op('get', '/pets/{id}', 'getpet'))).toBe(false); // operationIds are case-sensitive
    expect(filter.unusedIncludes()).toEqual(['nothing*']);
  });

  it('applies exclude after include; regex characters in patterns are literal', () => {
    const filter = new OperationFilter([], ['GET /pets/{id}', 'a.b']);
    expect(filter.accepts(op('get', '/pets/{id}', 'x'))).toBe(false);
    expect(filter.accepts(op('get', '/pets/{idx}', 'x'))).toBe(true);
    expect(filter.accepts(op('get', '/p', 'a.b'))).toBe(false);
    expect(filter.accepts(op('get', '/p', 'axb'))).toBe(true);
  });
});

describe('tool names within one source', () => {
  it('de-duplicates colliding names in document order', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'aperture-openapi-'));
    const spec = path.join(dir, 'dupes.json');
    const ok = { '200': { description: 'ok' } };
    writeFileSync(
      spec,
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 'dupes', version: '1' },
        servers: [{ url: 'https://{region}.example.com/v1', variables: { region: { default: 'eu' } } }],
        paths: {
          '/a': { get: { operationId: 'list items', responses: ok } },
          '/b': {
            get: { operationId: 'list-items?', responses: ok },
            post: { operationId: 'list_items', responses: ok },
          },
        },
      }),
    );
    const resolved: string[] = [];
    const resolveHost = async (host: string) => {
      resolved.push(host);
      return [{ address: '10.0.0.1', family: 4 }];
    };
    const entries = await loadOpenApiSource(
      { spec: 'dupes.json', namespace: 'd' },
      { sourceId: 's', baseDir: dir, log: silentLogger, resolveHost },
    );
    expect(entries.map((e) => e.tool.name)).toEqual(['list_items', 'list-items', 'list_items_2']);
    // The server URL's variables take their defaults; the guard sees the resulting host.
    const [first] = entries;
    const call = first!.backend.execute(
      first!.tool,
      {},
      {
        signal: new AbortController().signal,
        callId: 'c',
        caller: { identity: 't' },
        progress: () => {},
        log: silentLogger,
      },
    );
    await expect(call).rejects.toMatchObject({ code: 'forbidden' });
    expect(resolved).toEqual(['eu.example.com']);
  });
});
