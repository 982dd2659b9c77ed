import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway, HttpListener } from '../../src/app/gateway.js';
import { gatewayFrom } from '../support/in-process-gateway.js';
import { type JwtIssuer, startJwtIssuer } from '../support/jwt-issuer.js';

/*
 * Toolsets as scopes and auth, across every surface of one in-process gateway: scoped API keys
 * and JWTs cannot list, search, describe or run anything outside their toolsets — through each
 * metatool, `/mcp/{toolset}`, REST and A2A — and requests without valid credentials are refused.
 */

const ADMIN = 'admin-key-0123456789abcdef';
const TIMEKEEPER = 'timekeeper-key-0123456789';
const ARTIST = 'artist-key-0123456789abcd';

let issuer: JwtIssuer;
let gateway: Gateway;
let listener: HttpListener;
let url: string;

beforeAll(async () => {
  issuer = await startJwtIssuer();
  gateway = await gatewayFrom({
    server: { name: 'aperture-auth-test' },
    tools: { builtin: true, modules: ['test/fixtures/tools/fixture-tools.ts'] },
    exposure: { mode: 'auto', budgetTokens: 100_000 },
    toolsets: [
      { name: 'time', description: 'Clocks and time zones', namespaces: ['time'] },
      { name: 'diagrams', tags: ['diagram'] },
      { name: 'safe-fixtures', tools: ['fixture:*'], annotations: { readOnlyHint: true } },
    ],
    auth: {
      apiKeys: [
        { name: 'admin', key: ADMIN },
        { name: 'timekeeper', key: TIMEKEEPER, toolsets: ['time'] },
        { name: 'artist', key: ARTIST, toolsets: ['diagrams', 'time'] },
      ],
      jwt: {
        jwksUrl: issuer.jwksUrl,
        issuer: issuer.issuer,
        audience: 'aperture',
        toolsetsClaim: 'toolsets',
      },
      oauth: { authorizationServers: [issuer.issuer], scopesSupported: ['tools'] },
    },
  });
  listener = await gateway.serveHttp('127.0.0.1', 0);
  url = listener.url;
});

afterAll(async () => {
  await gateway?.close();
  await issuer?.[Symbol.asyncDispose]();
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function connect(headers: Record<string, string>, path = '/mcp'): Promise<Client & AsyncDisposable> {
  const client = new Client({ name: 'it', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}${path}`), { requestInit: { headers } }),
  );
  return Object.assign(client, { [Symbol.asyncDispose]: () => client.close() });
}

/** structuredContent of a metatool result. */
async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const result = await client.callTool({ name, arguments: args });
  return result.structuredContent;
}

const ids = (page: { tools: { id: string }[] }) => page.tools.map((t) => t.id);

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
function initialize(): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
}

describe('without valid credentials', () => {
  it('keeps /healthz and /readyz open', async () => {
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
  });

  it.each([
    ['POST', '/mcp', '/.well-known/oauth-protected-resource/mcp'],
    ['POST', '/mcp/time', '/.well-known/oauth-protected-resource/mcp/time'],
    ['GET', '/sse', '/.well-known/oauth-protected-resource/mcp'],
    ['POST', '/messages?sessionId=x', '/.well-known/oauth-protected-resource/mcp'],
    ['GET', '/api/tools', '/.well-known/oauth-protected-resource'],
    ['POST', '/api/tools/time:now', '/.well-known/oauth-protected-resource'],
    ['GET', '/openapi.json', '/.well-known/oauth-protected-resource'],
    ['POST', '/a2a', '/.well-known/oauth-protected-resource'],
    ['GET', '/.well-known/mcp/manifest.json', '/.well-known/oauth-protected-resource'],
    ['GET', '/', '/.well-known/oauth-protected-resource'],
  ])('refuses %s %s with 401 and a Bearer challenge naming the metadata', async (method, path, metadata) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: MCP_HEADERS,
      body: method === 'POST' ? '{}' : null,
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer realm="aperture", resource_metadata="${url}${metadata}"`,
    );
    const body = (await response.json()) as { success: boolean; error: { code: string; message: string } };
    expect(body).toEqual({
      success: false,
      error: { code: 'unauthorized', message: expect.stringMatching(/^Credentials required/) },
    });
  });

  it('answers a wrong key or a bad token with error="invalid_token"', async () => {
    for (const headers of [
      bearer('not-a-key-0123456789'),
      { 'x-api-key': 'not-a-key-0123456789' },
      bearer(await issuer.sign({ toolsets: ['time'] }, { expiresIn: -120 })),
    ]) {
      const response = await fetch(`${url}/api/tools`, { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(
        /^Bearer realm="aperture", error="invalid_token", error_description="[^"]+", resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource"$/,
      );
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    }
  });

  it('serves RFC 9728 protected resource metadata for the gateway and each MCP endpoint', async () => {
    const root = await fetch(`${url}/.well-known/oauth-protected-resource`);
    expect(root.status).toBe(200);
    expect(root.headers.get('access-control-allow-origin')).toBe('*');
    expect(await root.json()).toEqual({
      resource: url,
      authorization_servers: [issuer.issuer],
      bearer_methods_supported: ['header'],
      resource_name: 'aperture-auth-test',
      scopes_supported: ['tools'],
    });
    const mcp = (await (await fetch(`${url}/.well-known/oauth-protected-resource/mcp`)).json()) as {
      resource: string;
    };
    expect(mcp.resource).toBe(`${url}/mcp`);
    const time = (await (await fetch(`${url}/.well-known/oauth-protected-resource/mcp/time`)).json()) as {
      resource: string;
    };
    expect(time.resource).toBe(`${url}/mcp/time`);
    expect((await fetch(`${url}/.well-known/oauth-protected-resource/mcp/nope`)).status).toBe(404);
  });

  it('an official MCP client without credentials fails with 401', async () => {
    await expect(connect({})).rejects.toThrow(/401|Unauthorized/i);
  });
});

describe('a key confined to one toolset, over MCP', () => {
  it('sees only its toolset in tools/list and every listing metatool', async () => {
    await using client = await connect(bearer(TIMEKEEPER));
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('search_tools');
    expect(names).toContain('list_toolsets');
    expect(names.filter((n) => n.includes('__')).sort()).toEqual(['time__convert', 'time__now']);

    expect(ids(await call(client, 'list_tools'))).toEqual(['time:convert', 'time:now']);
    expect(ids(await call(client, 'search_tools', { query: 'encode a plantuml diagram' }))).toEqual([]);
    expect(ids(await call(client, 'search_tools', { query: 'current time' }))).toContain('time:now');
    expect(await call(client, 'list_namespaces')).toEqual({ namespaces: [{ namespace: 'time', tools: 2 }] });
    expect(await call(client, 'list_toolsets')).toEqual({
      toolsets: [{ name: 'time', description: 'Clocks and time zones', toolCount: 2, endpoint: '/mcp/time' }],
    });
  });

  it('cannot describe or run a tool outside it through any metatool (tool_not_found)', async () => {
    await using client = await connect(bearer(TIMEKEEPER));
    const outside = { source: 'A -> B' };
    const described = await client.callTool({
      name: 'describe_tool',
      arguments: { tool_id: 'plantuml:encode' },
    });
    expect(described.isError).toBe(true);
    expect((described.structuredContent as any).error.code).toBe('tool_not_found');

    const examples = await client.callTool({
      name: 'list_tool_examples',
      arguments: { tool_id: 'plantuml:encode' },
    });
    expect((examples.structuredContent as any).error.code).toBe('tool_not_found');

    const run = await client.callTool({
      name: 'run_tool',
      arguments: { tool_id: 'plantuml:encode', args: outside },
    });
    expect(run.isError).toBe(true);
    expect((run.structuredContent as any).error).toMatchObject({
      code: 'tool_not_found',
      tool_id: 'plantuml:encode',
    });

    const direct = await client
      .callTool({ name: 'plantuml__encode', arguments: outside })
      .catch((e: Error) => e);
    expect(String(direct)).toMatch(/Unknown tool: plantuml__encode/);

    const chain = await client.callTool({
      name: 'run_chain',
      arguments: {
        steps: [
          { tool_id: 'time:now', args: {} },
          { tool_id: 'plantuml:encode', args: outside },
        ],
      },
    });
    expect((chain.structuredContent as any).error).toMatchObject({
      code: 'chain_step_failed',
      details: { step: 1, error: { code: 'tool_not_found' } },
    });

    const code = await call(client, 'execute_code', {
      code: `
        const now = await tools.call('time:now', {});
        try { await tools.call('plantuml:encode', { source: 'A -> B' }); return 'escaped'; }
        catch (e) { return { code: e.code, proxies: typeof tools.plantuml, hasNow: typeof now }; }`,
    });
    expect(code.value).toEqual({ code: 'tool_not_found', proxies: 'undefined', hasNow: 'object' });
    expect(
      code.toolCalls.map((c: { tool_id: string; ok: boolean; code?: string }) => [c.tool_id, c.ok, c.code]),
    ).toEqual([
      ['time:now', true, undefined],
      ['plantuml:encode', false, 'tool_not_found'],
    ]);
    const search = await call(client, 'execute_code', {
      code: `return (await tools.search('diagram')).tools.length;`,
    });
    expect(search.value).toBe(0);

    const toolset = await client.callTool({
      name: 'describe_toolset',
      arguments: { toolset_id: 'diagrams' },
    });
    expect((toolset.structuredContent as any).error.code).toBe('forbidden');

    // What it may reach still works.
    const inside = await client.callTool({
      name: 'run_tool',
      arguments: { tool_id: 'time:now', args: { timezone: 'UTC' } },
    });
    expect(inside.isError).toBeFalsy();
  });

  it('gets 403 for a toolset endpoint it is not granted and 404 for one that does not exist', async () => {
    for (const [path, status, code] of [
      ['/mcp/diagrams', 403, 'forbidden'],
      ['/mcp/nope', 404, 'not_found'],
    ] as const) {
      const response = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { ...MCP_HEADERS, ...bearer(TIMEKEEPER) },
        body: initialize(),
      });
      expect(response.status).toBe(status);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe(code);
    }
    await expect(connect(bearer(TIMEKEEPER), '/mcp/diagrams')).rejects.toThrow(/"code":"forbidden"/);
  });
});

describe('/mcp/{toolset}', () => {
  it('lists and runs only that toolset, even for a caller granted more', async () => {
    await using client = await connect(bearer(ARTIST), '/mcp/diagrams');
    const flat = (await client.listTools()).tools.map((t) => t.name).filter((n) => n.includes('__'));
    expect(flat.sort()).toEqual(['plantuml__decode', 'plantuml__encode']);
    expect(ids(await call(client, 'list_tools'))).toEqual(['plantuml:decode', 'plantuml:encode']);
    const run = await client.callTool({ name: 'run_tool', arguments: { tool_id: 'time:now', args: {} } });
    expect((run.structuredContent as any).error.code).toBe('tool_not_found');
    const encoded = await client.callTool({ name: 'plantuml__encode', arguments: { source: 'A -> B' } });
    expect(encoded.isError).toBeFalsy();
  });

  it('serves an unconfined caller any toolset, with annotation rules applied', async () => {
    await using client = await connect(bearer(ADMIN), '/mcp/safe-fixtures');
    expect(ids(await call(client, 'list_tools'))).toEqual(['fixture:add']);
    const described = await call(client, 'describe_toolset', { toolset_id: 'safe-fixtures' });
    expect(described.toolset).toEqual({
      name: 'safe-fixtures',
      toolCount: 1,
      endpoint: '/mcp/safe-fixtures',
      definition: { tools: ['fixture:*'], annotations: { readOnlyHint: true } },
    });
    expect(ids(described)).toEqual(['fixture:add']);
    expect((await call(client, 'list_toolsets')).toolsets.map((t: { name: string }) => t.name)).toEqual([
      'time',
      'diagrams',
      'safe-fixtures',
    ]);
  });
});

describe('sessions', () => {
  it('refuses a request on a session initialised by another identity (403) and on another endpoint (404)', async () => {
    const opened = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, ...bearer(ADMIN) },
      body: initialize(),
    });
    expect(opened.status).toBe(200);
    const session = opened.headers.get('mcp-session-id');
    expect(session).toBeTruthy();
    await opened.text();
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    const headers = {
      ...MCP_HEADERS,
      'mcp-session-id': session as string,
      'mcp-protocol-version': '2025-11-25',
    };

    const hijack = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { ...headers, ...bearer(TIMEKEEPER) },
      body: list,
    });
    expect(hijack.status).toBe(403);
    expect(((await hijack.json()) as { error: { data: { code: string } } }).error.data.code).toBe(
      'forbidden',
    );

    const viaJwt = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { ...headers, ...bearer(await issuer.sign({ sub: 'admin', toolsets: ['*'] })) },
      body: list,
    });
    expect(viaJwt.status).toBe(403);

    const elsewhere = await fetch(`${url}/mcp/time`, {
      method: 'POST',
      headers: { ...headers, ...bearer(ADMIN) },
      body: list,
    });
    expect(elsewhere.status).toBe(404);

    const owner = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { ...headers, ...bearer(ADMIN) },
      body: list,
    });
    expect(owner.status).toBe(200);
    await owner.text();
  });

  it('refuses a legacy SSE message for a stream another identity opened', async () => {
    const controller = new AbortController();
    const stream = await fetch(`${url}/sse`, {
      headers: { ...bearer(ADMIN), accept: 'text/event-stream' },
      signal: controller.signal,
    });
    expect(stream.status).toBe(200);
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while (!/sessionId=([\w-]+)/.test(text)) text += new TextDecoder().decode((await reader.read()).value);
    const sessionId = /sessionId=([\w-]+)/.exec(text)?.[1];
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const post = (headers: Record<string, string>) =>
      fetch(`${url}/messages?sessionId=${sessionId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: ping,
      });
    expect((await post(bearer(TIMEKEEPER))).status).toBe(403);
    expect((await post({ 'x-api-key': ADMIN })).status).toBe(202);
    controller.abort();
  });
});

describe('JWT callers', () => {
  it('are confined to the toolsets of their claim', async () => {
    await using client = await connect(bearer(await issuer.sign({ sub: 'carol', toolsets: ['diagrams'] })));
    expect(ids(await call(client, 'list_tools'))).toEqual(['plantuml:decode', 'plantuml:encode']);
    const run = await client.callTool({ name: 'run_tool', arguments: { tool_id: 'time:now', args: {} } });
    expect((run.structuredContent as any).error.code).toBe('tool_not_found');
  });

  it('"*" grants everything', async () => {
    await using client = await connect(bearer(await issuer.sign({ toolsets: '*' })));
    expect(ids(await call(client, 'list_tools', { limit: 100 })).length).toBe(gateway.catalog.size);
  });

  it.each([
    ['expired', () => issuer.sign({ toolsets: ['time'] }, { expiresIn: -120 }), 401, 'invalid_token'],
    [
      'from another issuer',
      () => issuer.sign({ toolsets: ['time'], iss: 'https://elsewhere.example' }),
      401,
      'invalid_token',
    ],
    [
      'for another audience',
      () => issuer.sign({ toolsets: ['time'], aud: 'someone-else' }),
      401,
      'invalid_token',
    ],
    ['without the toolsets claim', () => issuer.sign(), 403, 'insufficient_scope'],
  ])('a token %s is refused', async (_what, make, status, error) => {
    const response = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, ...bearer(await make()) },
      body: initialize(),
    });
    expect(response.status).toBe(status);
    expect(response.headers.get('www-authenticate')).toContain(`error="${error}"`);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
      status === 401 ? 'unauthorized' : 'forbidden',
    );
  });
});

describe('REST', () => {
  const get = (path: string, headers: Record<string, string>) => fetch(`${url}${path}`, { headers });
  const run = (path: string, headers: Record<string, string>, args: unknown = {}) =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(args),
    });

  it('lists, describes and runs only inside the caller scope', async () => {
    const auth = { 'x-api-key': TIMEKEEPER };
    expect(ids((await (await get('/api/tools', auth)).json()) as any)).toEqual(['time:convert', 'time:now']);
    expect(ids((await (await get('/api/tools?q=diagram', auth)).json()) as any)).toEqual([]);
    const described = await get('/api/tools/plantuml:encode', auth);
    expect(described.status).toBe(404);
    expect(((await described.json()) as any).error.code).toBe('tool_not_found');
    const outside = await run('/api/tools/plantuml:encode', auth, { source: 'A -> B' });
    expect(outside.status).toBe(404);
    expect(((await outside.json()) as any).error).toMatchObject({
      code: 'tool_not_found',
      tool_id: 'plantuml:encode',
    });
    const inside = await run('/api/tools/time:now', auth, { timezone: 'UTC' });
    expect(inside.status).toBe(200);
    expect(((await inside.json()) as any).success).toBe(true);
    const doc = (await (await get('/openapi.json', auth)).json()) as {
      paths: Record<string, unknown>;
      security: unknown;
      components: { securitySchemes: Record<string, unknown> };
    };
    expect(
      Object.keys(doc.paths).filter((p) => p.startsWith('/api/tools/') && p !== '/api/tools/{id}'),
    ).toEqual(['/api/tools/time:convert', '/api/tools/time:now']);
    expect(doc.security).toEqual([{ bearer: [] }, { apiKey: [] }]);
    expect(doc.components.securitySchemes.apiKey).toEqual({
      type: 'apiKey',
      in: 'header',
      name: 'X-API-Key',
    });
    const search = await fetch(`${url}/api/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: JSON.stringify({ query: 'encode' }),
    });
    expect(ids((await search.json()) as any)).toEqual([]);
  });

  it('narrows with ?toolset=: 403 when not granted, 404 when unknown', async () => {
    const admin = bearer(ADMIN);
    expect(ids((await (await get('/api/tools?toolset=diagrams', admin)).json()) as any)).toEqual([
      'plantuml:decode',
      'plantuml:encode',
    ]);
    const narrowed = await run('/api/tools/time:now?toolset=diagrams', admin);
    expect(narrowed.status).toBe(404);
    expect(((await narrowed.json()) as any).error.code).toBe('tool_not_found');
    const denied = await get('/api/tools?toolset=diagrams', bearer(TIMEKEEPER));
    expect(denied.status).toBe(403);
    expect(((await denied.json()) as any).error.code).toBe('forbidden');
    const deniedRun = await run('/api/tools/plantuml:encode?toolset=diagrams', bearer(TIMEKEEPER), {
      source: 'x',
    });
    expect(deniedRun.status).toBe(403);
    const unknown = await get('/api/tools?toolset=nope', admin);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as any).error.code).toBe('not_found');
  });

  it('scopes the MCP manifest to the caller', async () => {
    const manifest = (await (await get('/.well-known/mcp/manifest.json', bearer(TIMEKEEPER))).json()) as {
      tools: { id: string }[];
    };
    expect(manifest.tools.map((t) => t.id)).toEqual(['time:convert', 'time:now']);
  });
});

describe('A2A', () => {
  async function send(headers: Record<string, string>, data: Record<string, unknown>) {
    const response = await fetch(`${url}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: {
          message: {
            kind: 'message',
            role: 'user',
            messageId: randomUUID(),
            parts: [{ kind: 'data', data }],
          },
        },
      }),
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { result: any }).result;
  }

  it('a data part running a tool outside the caller scope fails with tool_not_found', async () => {
    const auth = bearer(TIMEKEEPER);
    const outside = await send(auth, { tool_id: 'plantuml:encode', args: { source: 'A -> B' } });
    expect(outside.status.state).toBe('rejected');
    const error = outside.status.message.parts.find((p: { kind: string }) => p.kind === 'data').data.error;
    expect(error).toMatchObject({ code: 'tool_not_found', tool_id: 'plantuml:encode' });
    const inside = await send(auth, { tool_id: 'time:now', args: { timezone: 'UTC' } });
    expect(inside.status.state).toBe('completed');
  });

  it('keeps tasks per identity: another caller cannot read them', async () => {
    const task = await send(bearer(ADMIN), { tool_id: 'time:now', args: {} });
    const get = (headers: Record<string, string>) =>
      fetch(`${url}/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { id: task.id } }),
      }).then((r) => r.json() as Promise<{ result?: { id: string }; error?: { code: number } }>);
    expect((await get(bearer(ADMIN))).result?.id).toBe(task.id);
    expect((await get(bearer(TIMEKEEPER))).error).toBeDefined();
  });

  it('serves the agent card publicly: schemes without skills, skills of the caller scope with credentials', async () => {
    const anonymous = (await (
      await fetch(`${url}/.well-known/agent-card.json`, { headers: { 'a2a-version': '1.0' } })
    ).json()) as any;
    expect(anonymous.skills).toEqual([]);
    expect(Object.keys(anonymous.securitySchemes).sort()).toEqual(['apiKey', 'bearer']);
    const scoped = (await (
      await fetch(`${url}/.well-known/agent-card.json`, {
        headers: { 'a2a-version': '1.0', ...bearer(TIMEKEEPER) },
      })
    ).json()) as any;
    expect(scoped.skills.map((s: { id: string }) => s.id)).toEqual(['time:convert', 'time:now']);
    const legacy = (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as any;
    expect(legacy.security).toEqual([{ bearer: [] }, { apiKey: [] }]);
  });
});

describe('toolsets without auth', () => {
  it('serve /mcp/{toolset} and ?toolset= to anyone; a toolset session relays no downstream resources', async () => {
    const open = await gatewayFrom({ exposure: 'flat', toolsets: [{ name: 'time', namespaces: ['time'] }] });
    try {
      const served = await open.serveHttp('127.0.0.1', 0);
      const connectTo = async (path: string) => {
        const client = new Client({ name: 'it', version: '1' });
        await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}${path}`)));
        return client;
      };
      const whole = await connectTo('/mcp');
      const scoped = await connectTo('/mcp/time');
      expect(whole.getServerCapabilities()?.resources).toBeDefined();
      expect(scoped.getServerCapabilities()?.resources).toBeUndefined();
      expect((await scoped.listTools()).tools.map((t) => t.name).sort()).toEqual([
        'time__convert',
        'time__now',
      ]);
      await whole.close();
      await scoped.close();
      const listed = (await (await fetch(`${served.url}/api/tools?toolset=time`)).json()) as {
        tools: { id: string }[];
      };
      expect(ids(listed)).toEqual(['time:convert', 'time:now']);
      expect((await fetch(`${served.url}/api/tools?toolset=nope`)).status).toBe(404);
    } finally {
      await open.close();
    }
  });
});
