import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectHttp,
  type DisposableClient,
  FIXTURE_CONFIG,
  type RunningGateway,
  startHttpGateway,
  structured,
} from './gateway-process.js';
import { raw } from './raw-http.js';

const JSON_HEADERS = { 'content-type': 'application/json' };
const MCP_HEADERS = { ...JSON_HEADERS, accept: 'application/json, text/event-stream' };
const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
const SEND = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'message/send',
  params: {
    message: {
      kind: 'message',
      messageId: 'm1',
      role: 'user',
      parts: [{ kind: 'data', data: { tool_id: 'time:now', args: {} } }],
    },
  },
});

/** Every route family of the gateway, each with a request that would do something. */
const ROUTES: Array<{ method: string; path: string; body?: string; headers?: Record<string, string> }> = [
  { method: 'POST', path: '/mcp', body: INIT, headers: MCP_HEADERS },
  { method: 'POST', path: '/mcp/any', body: INIT, headers: MCP_HEADERS },
  { method: 'GET', path: '/sse' },
  { method: 'POST', path: '/messages?sessionId=x', body: INIT, headers: JSON_HEADERS },
  { method: 'GET', path: '/api/tools' },
  { method: 'POST', path: '/api/search', body: '{"query":"time"}', headers: JSON_HEADERS },
  { method: 'POST', path: '/api/tools/time:now', body: '{}', headers: JSON_HEADERS },
  { method: 'GET', path: '/openapi.json' },
  { method: 'POST', path: '/a2a', body: SEND, headers: JSON_HEADERS },
  { method: 'GET', path: '/.well-known/agent-card.json' },
  { method: 'GET', path: '/.well-known/mcp.json' },
  { method: 'GET', path: '/metrics' },
  { method: 'GET', path: '/readyz' },
];

describe('the default (loopback, no auth) gateway from outside', () => {
  let gateway: RunningGateway;
  let client: DisposableClient;

  beforeAll(async () => {
    gateway = await startHttpGateway(['--config', FIXTURE_CONFIG]);
    client = await connectHttp(gateway.url);
  });
  afterAll(async () => {
    await client?.[Symbol.asyncDispose]();
    await gateway?.[Symbol.asyncDispose]();
  });

  // Regression: Host "127.0.0.1.evil.example" (a DNS-rebinding name) with the same Origin ran every tool.
  it.each(ROUTES)('refuses a rebound host name on $method $path', async (route) => {
    const rebound = await raw(gateway.url, {
      ...route,
      headers: { ...route.headers, host: '127.0.0.1.evil.example', origin: 'http://127.0.0.1.evil.example' },
    });
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body).error.code).toBe('forbidden');
    const foreignOrigin = await raw(gateway.url, {
      ...route,
      headers: { ...route.headers, origin: 'http://127.0.0.1.evil.example:8080' },
    });
    expect(foreignOrigin.status).toBe(403);
  });

  it('still serves loopback hosts', async () => {
    const local = await raw(gateway.url, {
      method: 'POST',
      path: '/api/tools/time:now',
      body: '{}',
      headers: { ...JSON_HEADERS, host: 'localhost', origin: 'http://localhost:5173' },
    });
    expect(local.status).toBe(200);
  });

  // Regression: a wrong-typed filter made POST /api/search answer 500 internal.
  it.each([
    [{ query: 'x', category: 5 }, '/category'],
    [{ query: 'x', tags: 5 }, '/tags'],
    [{ tags: ['a'] }, '/query'],
    [{ query: 'x', limit: 'ten' }, '/limit'],
    [{ query: 'x', max_cost: 'cheap' }, '/max_cost'],
    [{ query: 'x', allow_side_effects: 'no' }, '/allow_side_effects'],
  ])('answers 400 validation_input for the search body %j, naming %s', async (body, field) => {
    const res = await raw(gateway.url, {
      method: 'POST',
      path: '/api/search',
      body: JSON.stringify(body),
      headers: JSON_HEADERS,
    });
    expect(res.status).toBe(400);
    const { error } = JSON.parse(res.body);
    expect(error.code).toBe('validation_input');
    expect(error.details.issues.map((i: { path: string }) => i.path)).toContain(field);
  });

  it.each(['limit=0', 'limit=-3', 'limit=1e3', 'limit=99999'])(
    'answers 400 for GET /api/tools?%s',
    async (query) => {
      const res = await raw(gateway.url, { path: `/api/tools?${query}` });
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body).error.code).toBe('validation_input');
    },
  );

  // Regression: 10,000-deep data to json:query came back as 502 execution_failed.
  it('refuses 10,000-deep JSON as the caller’s error on REST and MCP', async () => {
    const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    const rest = await raw(gateway.url, {
      method: 'POST',
      path: '/api/tools/json:query',
      body: `{"expression":"a","data":${deep}}`,
      headers: JSON_HEADERS,
    });
    expect(rest.status).toBe(413);
    expect(JSON.parse(rest.body).error).toMatchObject({
      code: 'payload_too_large',
      message: expect.stringMatching(/nests deeper than 128 levels/),
    });
    // Through the MCP client too (its JSON is within the HTTP limit at depth 200 but past the nesting one).
    let data: unknown = 1;
    for (let i = 0; i < 200; i++) data = { a: data };
    await expect(
      client.callTool({
        name: 'run_tool',
        arguments: { tool_id: 'json:query', args: { expression: 'a', data } },
      }),
    ).rejects.toThrow(/nests deeper than 128 levels/);
  });

  it('refuses deep arguments from code mode as validation_input', async () => {
    const result = await client.callTool({
      name: 'execute_code',
      arguments: {
        code: "let d = 1;\nfor (let i = 0; i < 500; i++) d = { a: d };\ntry { await tools.call('json:query', { expression: 'a', data: d }) } catch (e) { return e.code }",
      },
    });
    expect(structured(result), JSON.stringify(result)).toMatchObject({ value: 'validation_input' });
  });

  // Regression: code mode out of memory came back as "Uncaught null".
  it('reports a code-mode program out of memory as sandbox_violation naming the limit', async () => {
    const result = await client.callTool({
      name: 'execute_code',
      arguments: { code: 'const m = new Map();\nfor (let i = 0; ; i++) m.set(i, String(i))', memory_mb: 16 },
    });
    expect(result.isError).toBe(true);
    expect(structured(result).error).toMatchObject({
      code: 'sandbox_violation',
      message: expect.stringMatching(/memory limit \(16 MiB\)/),
    });
  });

  // Regression: tools/call with name 5 answered -32603 with a zod dump.
  it('answers tools/call with a wrong-typed name with -32602 and a short message', async () => {
    const init = await raw(gateway.url, { method: 'POST', path: '/mcp', body: INIT, headers: MCP_HEADERS });
    const session = String(init.headers['mcp-session-id']);
    const headers = { ...MCP_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await raw(gateway.url, {
      method: 'POST',
      path: '/mcp',
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      headers,
    });
    const call = await raw(gateway.url, {
      method: 'POST',
      path: '/mcp',
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 5, arguments: {} },
      }),
      headers,
    });
    // A 2025-11-25 stream opens with an empty priming event (where a resume would start).
    const payload = call.body.includes('data:')
      ? call.body
          .split('\n')
          .find((line) => line.startsWith('data: {'))
          ?.slice(6)
      : call.body;
    const { error } = JSON.parse(payload as string);
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(/Invalid params for tools\/call: params\.name: .*expected string/);
    expect(error.message.length).toBeLessThan(200);
  });

  // The class of the /api/search 500: no wrong-typed input to any REST route, query parameter or
  // A2A endpoint may come back as a server fault.
  it('answers wrong-typed input on every REST and A2A route with a 4xx, never a 5xx', async () => {
    const values: unknown[] = [5, 'x', true, null, [], [1], {}, { a: 1 }, -1, 1e308];
    const requests: Array<{ method: string; path: string; body?: unknown }> = [];
    const searchKeys = [
      'query',
      'limit',
      'cursor',
      'namespace',
      'tags',
      'category',
      'max_cost',
      'max_latency_ms',
      'allow_side_effects',
      'explain',
    ];
    for (const value of values) {
      requests.push({ method: 'POST', path: '/api/search', body: value });
      for (const key of searchKeys)
        requests.push({ method: 'POST', path: '/api/search', body: { query: 'x', [key]: value } });
      for (const tool of [
        'time:now',
        'time:convert',
        'json:query',
        'text:stats',
        'plantuml:encode',
        'plantuml:decode',
      ]) {
        requests.push({ method: 'POST', path: `/api/tools/${tool}`, body: value });
      }
      requests.push({
        method: 'POST',
        path: '/api/tools/json:query',
        body: { expression: value, data: value },
      });
      requests.push({ method: 'POST', path: '/a2a', body: value });
      for (const method of [
        'message/send',
        'SendMessage',
        'tasks/get',
        'GetTask',
        'tasks/cancel',
        'CancelTask',
      ]) {
        requests.push({
          method: 'POST',
          path: '/a2a',
          body: { jsonrpc: '2.0', id: 1, method, params: value },
        });
        requests.push({
          method: 'POST',
          path: '/a2a',
          body: {
            jsonrpc: '2.0',
            id: 1,
            method,
            params: {
              id: value,
              message: {
                kind: 'message',
                messageId: 'm',
                role: 'user',
                parts: [{ kind: 'data', data: { tool_id: value, args: value } }],
              },
            },
          },
        });
      }
      for (const path of ['/a2a/v1/message:send', '/a2a/v1/tasks/x:cancel', '/a2a/message:send']) {
        requests.push({ method: 'POST', path, body: { message: value } });
        requests.push({
          method: 'POST',
          path,
          body: { message: { messageId: 'm', role: 'ROLE_USER', content: [{ data: { data: value } }] } },
        });
      }
    }
    for (const param of ['limit', 'cursor', 'namespace', 'tags', 'q', 'toolset', 'detail', 'historyLength']) {
      for (const value of ['x', '-1', '0', '1e999', '%00', '[]', 'a,b']) {
        const query = `${param}=${encodeURIComponent(value)}`;
        for (const path of [
          '/api/tools',
          '/api/tools/time:now',
          '/openapi.json',
          '/a2a/v1/tasks/x',
          '/.well-known/agent-card.json',
        ]) {
          requests.push({ method: 'GET', path: `${path}?${query}` });
        }
      }
    }
    const faults: string[] = [];
    for (const request of requests) {
      const res = await raw(gateway.url, {
        method: request.method,
        path: request.path,
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body), headers: JSON_HEADERS }),
      });
      if (res.status >= 500)
        faults.push(
          `${res.status} ${request.method} ${request.path} ${JSON.stringify(request.body)}: ${res.body.slice(0, 200)}`,
        );
    }
    expect(faults).toEqual([]);
  }, 60_000);

  it('keeps /metrics and /readyz details open without auth', async () => {
    expect((await raw(gateway.url, { path: '/metrics' })).status).toBe(200);
    expect(JSON.parse((await raw(gateway.url, { path: '/readyz' })).body)).toHaveProperty('tools');
  });
});

describe('/metrics with auth configured', () => {
  const ALPHA_KEY = 'e2e-alpha-key-0123456789abcdef';
  const ADMIN_KEY = 'e2e-admin-key-0123456789abcdef';
  let gateway: RunningGateway;

  beforeAll(async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'aperture-metrics-'));
    const file = path.join(dir, 'aperture.yaml');
    await writeFile(
      file,
      [
        'server: { name: metrics-e2e }',
        'observability: { logLevel: error }',
        'toolsets:',
        '  - { name: alpha, namespaces: [time] }',
        'auth:',
        '  apiKeys:',
        `    - { name: alpha, key: "${ALPHA_KEY}", toolsets: [alpha] }`,
        `    - { name: ops, key: "${ADMIN_KEY}", admin: true }`,
        '',
      ].join('\n'),
    );
    gateway = await startHttpGateway(['--config', file]);
    // A call outside alpha, so the metrics name a tool alpha must not learn about.
    const run = await raw(gateway.url, {
      method: 'POST',
      path: '/api/tools/json:query',
      body: '{"expression":"a","data":{"a":1}}',
      headers: { ...JSON_HEADERS, 'x-api-key': ADMIN_KEY },
    });
    expect(run.status).toBe(200);
  });
  afterAll(async () => gateway?.[Symbol.asyncDispose]());

  // Regression: a key confined to toolset alpha read tool_exec_total{tool="json:query"} and the rest.
  it('refuses a toolset-confined key (403) and anonymous callers (401)', async () => {
    const alpha = await raw(gateway.url, { path: '/metrics', headers: { 'x-api-key': ALPHA_KEY } });
    expect(alpha.status).toBe(403);
    expect(alpha.body).not.toContain('json:query');
    expect(JSON.parse(alpha.body).error.message).toMatch(/admin/);
    expect((await raw(gateway.url, { path: '/metrics' })).status).toBe(401);
  });

  it('serves an admin key', async () => {
    const admin = await raw(gateway.url, { path: '/metrics', headers: { 'x-api-key': ADMIN_KEY } });
    expect(admin.status).toBe(200);
    expect(admin.body).toContain('tool="json:query"');
  });

  it('answers /readyz to probes with the verdict only; details to the admin', async () => {
    const probe = await raw(gateway.url, { path: '/readyz' });
    expect(JSON.parse(probe.body)).toEqual({ ready: true });
    const alpha = await raw(gateway.url, { path: '/readyz', headers: { 'x-api-key': ALPHA_KEY } });
    expect(JSON.parse(alpha.body)).toEqual({ ready: true });
    const admin = await raw(gateway.url, { path: '/readyz', headers: { 'x-api-key': ADMIN_KEY } });
    expect(JSON.parse(admin.body)).toHaveProperty('sources');
  });
});
