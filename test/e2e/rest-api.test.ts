import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectHttp,
  FIXTURE_CONFIG,
  ROOT,
  type RunningGateway,
  startHttpGateway,
  structured,
} from './gateway-process.js';

const CORS_CONFIG = `${ROOT}/test/fixtures/gateway-cors.yaml`;

describe('REST API', () => {
  let gateway: RunningGateway;
  let plain: RunningGateway;
  beforeAll(async () => {
    [gateway, plain] = await Promise.all([
      startHttpGateway(['--config', CORS_CONFIG]),
      startHttpGateway(['--config', FIXTURE_CONFIG]),
    ]);
  });
  afterAll(async () => {
    await gateway?.[Symbol.asyncDispose]();
    await plain?.[Symbol.asyncDispose]();
  });

  const get = (path: string, init?: RequestInit) => fetch(`${gateway.url}${path}`, init);
  const post = (
    path: string,
    body: unknown,
    headers: Record<string, string> = { 'content-type': 'application/json' },
  ) =>
    fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers,
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const json = async (res: Response) => (await res.json()) as Record<string, any>;

  it('lists, searches, filters and pages tool summaries', async () => {
    const all = await json(await get('/api/tools?limit=100'));
    expect(all.tools.map((t: { id: string }) => t.id)).toEqual(
      expect.arrayContaining(['plantuml:encode', 'fixture:add']),
    );
    expect(all.tools[0]).not.toHaveProperty('inputSchema');
    const found = await json(await get('/api/tools?q=encode%20a%20diagram&limit=3'));
    expect(found.tools[0].id).toBe('plantuml:encode');
    const ns = await json(await get('/api/tools?namespace=time'));
    expect(ns.tools.every((t: { namespace: string }) => t.namespace === 'time')).toBe(true);
    const first = await json(await get('/api/tools?limit=2'));
    const second = await json(await get(`/api/tools?limit=2&cursor=${encodeURIComponent(first.nextCursor)}`));
    expect(second.tools[0].id).not.toBe(first.tools[0].id);
    const searched = await json(await post('/api/search', { query: 'time zone', limit: 2 }));
    expect(searched.tools[0].id).toMatch(/^time:/);
    // Explanations for the console: why each result is there, a plain JSON object per result.
    const explained = await json(await get('/api/tools?q=encode%20a%20diagram&limit=3&explain=true'));
    expect(explained.tools[0]).toMatchObject({
      id: 'plantuml:encode',
      explanation: { strategy: 'bm25', lexical: { rank: 1, terms: { encod: expect.any(Object) } } },
    });
    expect(explained.tools[0].explanation.score).toBe(explained.tools[0].score);
    expect(found.tools[0]).not.toHaveProperty('explanation');
  });

  it('describes one tool with its schemas', async () => {
    const res = await get('/api/tools/plantuml:encode');
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.tool.inputSchema.required).toContain('source');
    const full = await json(await get('/api/tools/fixture:add?detail=full'));
    expect(full.examples).toHaveLength(1);
  });

  it('runs a tool with the body as arguments, agreeing with MCP', async () => {
    const res = await post('/api/tools/plantuml:encode', { source: 'Bob -> Alice : hello' });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.success).toBe(true);
    expect(body.result.structuredContent.encoded).toBe('SyfFKj2rKt3CoKnELR1Io4ZDoSa70000');
    await using client = await connectHttp(gateway.url);
    const viaMcp = await client.callTool({
      name: 'run_tool',
      arguments: { tool_id: 'plantuml:encode', args: { source: 'Bob -> Alice : hello' } },
    });
    expect(structured(viaMcp)).toEqual(body.result.structuredContent);
    const noBody = await fetch(`${gateway.url}/api/tools/fixture:noop`, {
      method: 'POST',
      headers: { 'x-aperture-request': '1' },
    });
    expect(noBody.status).toBe(200);
  });

  it('maps every failure to its status and code, never a 500 for the caller', async () => {
    const cases: [Promise<Response>, number, string][] = [
      [post('/api/tools/fixture:add', { a: 'x' }), 400, 'validation_input'],
      [post('/api/tools/nope:missing', {}), 404, 'tool_not_found'],
      [get('/api/tools/nope:missing'), 404, 'tool_not_found'],
      [post('/api/tools/fixture:fail', {}), 502, 'execution_failed'],
      [post('/api/tools/fixture:hang', {}), 504, 'timeout'],
      [post('/api/tools/fixture:bad_output', {}), 502, 'validation_output'],
      [post('/api/tools/fixture:add', '{"a":'), 400, 'invalid_request'],
      [post('/api/tools/fixture:add', '[1,2]'), 400, 'invalid_request'],
      [
        post('/api/tools/fixture:add', 'a=1', { 'content-type': 'application/x-www-form-urlencoded' }),
        415,
        'unsupported_media_type',
      ],
      [post('/api/tools/fixture:add', { pad: 'x'.repeat(70_000) }), 413, 'payload_too_large'],
      // The search body is validated with search_tools' schema, with its code.
      [post('/api/search', { limit: 2 }), 400, 'validation_input'],
      [get('/api/tools?limit=abc'), 400, 'validation_input'],
      [get('/api/tools?limit=500'), 400, 'validation_input'],
      [get('/api/tools?cursor=junk'), 400, 'invalid_request'],
      [get('/api/tools/plantuml:encode?detail=everything'), 400, 'validation_input'],
      [fetch(`${gateway.url}/api/tools`, { method: 'DELETE' }), 405, 'method_not_allowed'],
      [
        fetch(`${gateway.url}/api/tools/fixture:add`, { method: 'PUT', body: '{}' }),
        405,
        'method_not_allowed',
      ],
      [get('/api/nothing'), 404, 'not_found'],
    ];
    for (const [pending, status, code] of cases) {
      const res = await pending;
      const body = await json(res);
      expect([res.status, body.error?.code], JSON.stringify(body)).toEqual([status, code]);
      expect(body.success).toBe(false);
    }
    const ok = await post('/api/tools/fixture:add', { a: 1, b: 2 });
    expect((await json(ok)).result.structuredContent).toEqual({ sum: 3 });
  });

  it('publishes a valid OpenAPI 3.1 document with one operation per tool', async () => {
    const doc = await json(await get('/openapi.json'));
    // A maintained OpenAPI parser validates the whole document (schema and $refs).
    const validated = (await SwaggerParser.validate(structuredClone(doc) as never)) as unknown as Record<
      string,
      any
    >;
    expect(validated.openapi).toBe('3.1.0');
    expect(doc.openapi).toBe('3.1.0');
    const op = doc.paths['/api/tools/plantuml:encode'].post;
    expect(op.operationId).toBe('plantuml__encode');
    expect(op.requestBody.content['application/json'].schema.required).toContain('source');
    const ids = Object.values(doc.paths).flatMap((p: any) => Object.values(p).map((o: any) => o.operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('answers CORS preflights for listed origins only', async () => {
    const preflight = (origin: string, base = gateway.url) =>
      fetch(`${base}/api/tools/fixture:add`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
    const allowed = await preflight('https://app.example.com');
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect((await preflight('https://evil.example')).status).toBe(403);
    expect((await preflight('https://app.example.com', plain.url)).status).toBe(403);
    const actual = await get('/api/tools?limit=1', { headers: { origin: 'https://app.example.com' } });
    expect(actual.status).toBe(200);
    expect(actual.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    const foreign = await get('/api/tools?limit=1', { headers: { origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
  });
});
