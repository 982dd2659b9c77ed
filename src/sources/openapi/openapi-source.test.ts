import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Echo,
  type EchoService,
  OPENAPI_FIXTURES,
  startEchoService,
} from '../../../test/fixtures/openapi/echo-service.js';
import type { CatalogEntry } from '../../catalog/catalog-entry.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { type Logger, silentLogger } from '../../foundation/ports/logger.js';
import type { ExecutionContext } from '../../foundation/ports/tool-backend.js';
import { SchemaValidator } from '../../foundation/schema/schema-validator.js';
import { loadOpenApiSource } from './openapi-source.js';
import type { OpenApiSourceOptions } from './openapi-source-options.js';

let service: EchoService;
beforeAll(async () => {
  service = await startEchoService();
});
afterAll(async () => {
  await service[Symbol.asyncDispose]();
});

const context = { sourceId: 'openapi:echo', baseDir: OPENAPI_FIXTURES, log: silentLogger };

function load(options: Partial<OpenApiSourceOptions> = {}, log: Logger = silentLogger) {
  return loadOpenApiSource(
    {
      spec: 'echo-service.yaml',
      namespace: 'echo',
      baseUrl: `${service.origin}/api`,
      allowPrivateNetwork: true,
      ...options,
    },
    { ...context, log },
  );
}

function execContext(signal = new AbortController().signal): ExecutionContext {
  return { signal, callId: 'test', caller: { identity: 'test' }, progress: () => {}, log: silentLogger };
}

function entry(entries: CatalogEntry[], name: string): CatalogEntry {
  const found = entries.find((e) => e.tool.name === name);
  if (!found) throw new Error(`no tool ${name} in ${entries.map((e) => e.tool.name).join(', ')}`);
  return found;
}

async function run(
  entries: CatalogEntry[],
  name: string,
  args: Record<string, unknown>,
  signal?: AbortSignal,
) {
  const { tool, backend } = entry(entries, name);
  return await backend.execute(tool, args, execContext(signal));
}

async function failure(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

describe('loadOpenApiSource: tools from an OpenAPI 3.1 document', () => {
  it('makes one tool per callable operation, named from operationId or method_path', async () => {
    const warnings: string[] = [];
    const log: Logger = { ...silentLogger, warn: (_obj, msg) => warnings.push(msg ?? ''), child: () => log };
    const entries = await load({}, log);
    expect(entries.map((e) => e.tool.id)).toEqual([
      'echo:getItem',
      'echo:replaceItem',
      'echo:deleteItem',
      'echo:create_item',
      'echo:get_list',
      'echo:fail',
      'echo:slow',
      'echo:getText',
      'echo:getBinary',
    ]);
    expect(warnings).toContain('operation skipped'); // upload: multipart only
    const getItem = entry(entries, 'getItem').tool;
    expect(getItem.title).toBe('Fetch one item');
    expect(getItem.description).toBe('Fetch one item\n\nEchoes the request.');
    expect(getItem.tags).toEqual(['items', 'read-only']);
    expect(getItem.origin).toEqual({ sourceId: 'openapi:echo', kind: 'openapi', originalName: 'getItem' });
    expect(entry(entries, 'get_list').tool.origin.originalName).toBe('GET /list');
  });

  it('derives annotations from the HTTP method', async () => {
    const entries = await load();
    expect(entry(entries, 'getItem').tool.annotations).toEqual({
      readOnlyHint: true,
      idempotentHint: true,
      openWorldHint: true,
    });
    expect(entry(entries, 'replaceItem').tool.annotations).toMatchObject({
      readOnlyHint: false,
      idempotentHint: true,
      destructiveHint: false,
    });
    expect(entry(entries, 'deleteItem').tool.annotations).toMatchObject({
      idempotentHint: true,
      destructiveHint: true,
      openWorldHint: true,
    });
    expect(entry(entries, 'create_item').tool.annotations).toMatchObject({
      readOnlyHint: false,
      idempotentHint: false,
      destructiveHint: false,
    });
  });

  it('joins path, query and header parameters and the body into one input schema', async () => {
    const entries = await load();
    const getItem = entry(entries, 'getItem').tool.inputSchema;
    expect(Object.keys(getItem.properties as object)).toEqual([
      'id',
      'query_id',
      'tags',
      'limit',
      'X-Trace-Id',
    ]);
    expect(getItem.required).toEqual(['id', 'limit']);
    expect(getItem.additionalProperties).toBe(false);
    expect(getItem.properties).toMatchObject({
      id: { type: 'string', description: 'Item id (path-level parameter).' },
      query_id: { type: 'integer', description: 'Same name as the path parameter, on purpose.' },
      tags: { type: 'array', items: { type: 'string' } },
    });
    const create = entry(entries, 'create_item').tool.inputSchema;
    expect(create.required).toEqual(['body']);
    const body = (create.properties as Record<string, Record<string, unknown>>).body;
    expect(body?.description).toBe('The new item.');
    // readOnly `id` is the server's to set; the circular `parent` is cut to `{}` one level down.
    expect(Object.keys(body?.properties as object)).toEqual(['name', 'price', 'parent']);
    expect(JSON.stringify(create)).toBeTruthy();
  });

  it('gives an output schema only for object JSON responses', async () => {
    const entries = await load();
    expect(entry(entries, 'getItem').tool.outputSchema).toMatchObject({
      type: 'object',
      required: ['method', 'path'],
    });
    expect(entry(entries, 'create_item').tool.outputSchema?.type).toBe('object');
    expect(entry(entries, 'get_list').tool.outputSchema).toBeUndefined();
    expect(entry(entries, 'getText').tool.outputSchema).toBeUndefined();
    expect(entry(entries, 'deleteItem').tool.outputSchema).toBeUndefined();
  });

  it('produces schemas that compile and validate as expected', async () => {
    const validator = new SchemaValidator();
    for (const { tool } of await load()) {
      expect(() => validator.compile(tool.inputSchema), tool.id).not.toThrow();
      if (tool.outputSchema) expect(() => validator.compile(tool.outputSchema!), tool.id).not.toThrow();
    }
    const entries = await load();
    const schema = entry(entries, 'getItem').tool.inputSchema;
    expect(validator.validate(schema, { id: 'a', limit: 1, tags: ['x'] }).valid).toBe(true);
    expect(validator.validate(schema, { id: 'a' }).valid).toBe(false);
    expect(validator.validate(schema, { id: 'a', limit: 0 }).valid).toBe(false);
    expect(validator.validate(schema, { id: 'a', limit: 1, typo: 1 }).valid).toBe(false);
  });
});

describe('OpenAPI backends: calls', () => {
  it('places every parameter where the document says and returns the JSON object', async () => {
    const entries = await load({ headers: { Authorization: 'Bearer s3cret' } });
    const result = (await run(entries, 'getItem', {
      id: 'a/b c',
      query_id: 7,
      tags: ['red', 'green & blue'],
      limit: 5,
      'X-Trace-Id': 'trace-1',
    })) as Echo;
    expect(result.method).toBe('GET');
    expect(result.path).toBe('/api/items/a%2Fb%20c');
    expect(result.query).toEqual({ id: '7', tags: ['red', 'green & blue'], limit: '5' });
    expect(result.headers['x-trace-id']).toBe('trace-1');
    expect(result.headers.authorization).toBe('Bearer s3cret');
    expect(result.headers.accept).toContain('application/json');
    expect(result.body).toBeUndefined();
  });

  it('sends the JSON body and query flags of a POST', async () => {
    const entries = await load();
    const result = (await run(entries, 'create_item', {
      dryRun: true,
      body: { name: 'lamp', price: null },
    })) as Echo;
    expect(result).toMatchObject({
      method: 'POST',
      path: '/api/items',
      query: { dryRun: 'true' },
      headers: { 'content-type': 'application/json' },
      body: { name: 'lamp', price: null },
    });
  });

  it('wraps JSON arrays as { result }, passes text through, describes binary bodies', async () => {
    const entries = await load();
    expect(await run(entries, 'get_list', {})).toEqual({ result: [1, 2, 3] });
    expect(await run(entries, 'getText', {})).toBe('plain text, ünïcödé');
    const binary = await run(entries, 'getBinary', {});
    expect(binary).toMatch(/image\/png.*6 bytes/);
    expect(await run(entries, 'deleteItem', { id: 'x' })).toBe('HTTP 204 No Content');
  });

  it('turns a 404 into execution_failed with the status and a body excerpt', async () => {
    const error = await failure(run(await load(), 'fail', { status: 404 }));
    expect(error.code).toBe('execution_failed');
    expect(error.message).toBe('HTTP 404 Not Found: {"error":"no such thing","status":404}');
    expect(error.details).toEqual({ status: 404, body: '{"error":"no such thing","status":404}' });
    expect(error.retryable).toBe(false);
  });

  it('keeps only the first 500 characters of a 500 body', async () => {
    const error = await failure(run(await load(), 'fail', { status: 500 }));
    expect(error.code).toBe('execution_failed');
    expect(error.message.startsWith('HTTP 500 Internal Server Error: boom xxx')).toBe(true);
    expect(error.details?.status).toBe(500);
    expect(String(error.details?.body)).toHaveLength(501); // 500 characters and an ellipsis
  });

  it('gives up with timeout after timeoutMs', async () => {
    const entries = await load({ timeoutMs: 150 });
    const started = Date.now();
    const error = await failure(run(entries, 'slow', { ms: 3000 }));
    expect(error.code).toBe('timeout');
    expect(error.details).toEqual({ timeoutMs: 150 });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(entry(entries, 'slow').tool.metadata.extra?.timeoutMs).toBe(150);
  });

  it('stops when the caller aborts, with the caller’s reason', async () => {
    const controller = new AbortController();
    const pending = run(await load(), 'slow', { ms: 3000 }, controller.signal);
    setTimeout(() => controller.abort(new GatewayError('cancelled', 'client went away')), 50);
    const error = await failure(pending);
    expect(error.code).toBe('cancelled');
    expect(error.message).toBe('client went away');
  });

  it('reports an unreachable service as backend_unavailable', async () => {
    const entries = await load({ baseUrl: 'http://127.0.0.1:9/api' });
    const error = await failure(run(entries, 'get_list', {}));
    expect(error.code).toBe('backend_unavailable');
  });

  it('refuses a body larger than maxResponseBytes', async () => {
    const error = await failure(run(await load({ maxResponseBytes: 10 }), 'getText', {}));
    expect(error.code).toBe('execution_failed');
    expect(error.message).toContain('larger than 10 bytes');
  });
});

describe('OpenAPI source: include, exclude, spec URL, guard', () => {
  it('keeps only included operations, by operationId or METHOD /path with globs', async () => {
    const entries = await load({ include: ['getItem', 'post /items', 'GET /l*', '*Text'] });
    expect(entries.map((e) => e.tool.name)).toEqual(['getItem', 'create_item', 'get_list', 'getText']);
  });

  it('drops excluded operations', async () => {
    const entries = await load({ exclude: ['*Item', 'DELETE *', '* /fail/*', 'slow', 'get*'] });
    expect(entries.map((e) => e.tool.name)).toEqual(['create_item']);
  });

  it('loads the spec from a URL and resolves its relative server against it', async () => {
    const entries = await load({ spec: service.specUrl, baseUrl: undefined });
    const echo = (await run(entries, 'getItem', { id: 'u', limit: 1 })) as Echo;
    expect(echo.path).toBe('/api/items/u');
  });

  it('refuses a spec URL on a private address without allowPrivateNetwork', async () => {
    const error = await failure(load({ spec: service.specUrl, allowPrivateNetwork: false }));
    expect(error.code).toBe('forbidden');
    expect(error.message).toContain(service.specUrl);
  });

  it('refuses calls to a private address without allowPrivateNetwork', async () => {
    const entries = await load({ allowPrivateNetwork: false });
    const before = service.requests.length;
    const error = await failure(run(entries, 'get_list', {}));
    expect(error.code).toBe('forbidden');
    expect(service.requests).toHaveLength(before);
  });

  it('refuses non-http spec schemes', async () => {
    const error = await failure(load({ spec: 'ftp://example.com/spec.yaml' }));
    expect(error.code).toBe('forbidden');
  });
});

describe('OpenAPI source: bad configuration', () => {
  it('a spec that is not YAML → config_invalid naming the file', async () => {
    // Written here, not kept in fixtures: the linter parses YAML files and would trip over it.
    const spec = path.join(mkdtempSync(path.join(tmpdir(), 'aperture-openapi-')), 'broken.yaml');
    writeFileSync(spec, 'openapi: 3.1.0\ninfo: { title: broken\n  version: [\npaths: {\n');
    const error = await failure(load({ spec }));
    expect(error.code).toBe('config_invalid');
    expect(error.message).toMatch(/^OpenAPI spec \/.*broken\.yaml: .+/);
  });

  it.each([
    ['invalid.yaml', /OpenAPI spec invalid\.yaml: .*validation failed/i],
    ['missing.yaml', /OpenAPI spec missing\.yaml: .*(ENOENT|no such file)/],
  ])('%s → config_invalid naming the file', async (spec, message) => {
    const error = await failure(load({ spec }));
    expect(error.code).toBe('config_invalid');
    expect(error.message).toMatch(message);
  });

  it('needs baseUrl when a file spec has only relative servers', async () => {
    const error = await failure(load({ baseUrl: undefined }));
    expect(error.code).toBe('config_invalid');
    expect(error.message).toContain('set baseUrl');
  });

  it.each([
    [{ namespace: 'bad namespace' }, 'namespace'],
    [{ baseUrl: 'ftp://example.com' }, 'baseUrl'],
    [{ timeoutMs: 0 }, 'timeoutMs'],
    [{ headers: { 'Bad Header': 'x' } }, 'headers'],
  ])('refuses bad options (%#)', async (options, field) => {
    const error = await failure(load(options));
    expect(error.code).toBe('config_invalid');
    expect(error.message).toContain(field);
  });
});

describe('OpenAPI source: a 3.0 document', () => {
  const legacy = () =>
    loadOpenApiSource(
      {
        spec: path.join(OPENAPI_FIXTURES, 'legacy-3.0.yaml'),
        namespace: 'legacy',
        baseUrl: 'https://example.com',
      },
      context,
    );

  it('converts nullable and boolean exclusive bounds to JSON Schema', async () => {
    const [only] = await legacy();
    const tool = only!.tool;
    expect(tool.name).toBe('patch_things_thingId');
    const props = tool.inputSchema.properties as Record<string, Record<string, unknown>>;
    // `body` is the request body; the query parameter of that name moves aside.
    expect(Object.keys(props)).toEqual(['thingId', 'query_body', 'ratio', 'body']);
    expect(props.query_body).toMatchObject({ type: ['string', 'null'] });
    expect(props.ratio).toEqual({ type: 'number', exclusiveMinimum: 0 });
    const body = props.body?.properties as Record<string, Record<string, unknown>>;
    expect(body.note).toEqual({ type: ['string', 'null'] });
    expect(body.color).toEqual({ type: ['string', 'null'], enum: ['red', 'green', null] });
    expect(body.ref?.anyOf).toHaveLength(2);
    expect(tool.outputSchema?.properties).toEqual({ id: { type: 'integer', format: 'int64' } });

    const validator = new SchemaValidator();
    expect(
      validator.validate(tool.inputSchema, {
        thingId: 't',
        query_body: null,
        ratio: 0.5,
        body: { note: null, color: null, ref: null },
      }).valid,
    ).toBe(true);
    expect(validator.validate(tool.inputSchema, { thingId: 't', ratio: 0 }).valid).toBe(false);
  });
});
