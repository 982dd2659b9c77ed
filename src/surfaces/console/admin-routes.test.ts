import { Hono } from 'hono';
import { describe, expect, it, vi } from 'vitest';
import { surfaceContext } from '../../../test/support/surface-context.js';
import { makeTool } from '../../../test/support/test-tools.js';
import type { ToolScope } from '../../composition/tool-scope.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { RunCall } from '../../foundation/ports/run-middleware.js';
import type { CallerContext } from '../../foundation/ports/tool-backend.js';
import { ActivityFeed } from '../../operations/observe/activity-feed.js';
import { setRequestCaller } from '../http/request-caller.js';
import { ADMIN_API, type AdminOperationId, type ConfigCheck } from './admin-contract.js';
import { type AdminParts, adminRoutes } from './admin-routes.js';

const tool = makeTool('geo:route', {
  description: 'Route between two points',
  inputSchema: { type: 'object', properties: { from: { type: 'string' } }, required: ['from'] },
});
const scope = {
  get: (id: string) => {
    if (id === tool.id) return tool;
    throw new GatewayError('tool_not_found', `Tool ${id} not found`);
  },
} as unknown as ToolScope;

/** The admin routes behind a stand-in auth middleware that sets `caller` (undefined: auth off). */
function app(parts: Partial<AdminParts> & { authEnabled: boolean }, caller?: CallerContext) {
  const full: AdminParts = {
    sources: () => [{ id: 'mcp:a', kind: 'mcp', state: 'connected', tools: 1 }],
    reconnect: async () => {},
    activity: new ActivityFeed(),
    config: () => ({ server: { port: 1 } }),
    // Answers of its own shape, so the route is seen passing them through untouched.
    checkConfig: (text: string) =>
      (text.includes('bad') ? { valid: false } : { valid: true }) as unknown as ConfigCheck,
    tokenCosts: async () => ({ flat: 10, metatools: 20, tools: 1, counter: 'estimate' }),
    ...parts,
  };
  const outer = new Hono();
  outer.use('*', async (c, next) => {
    if (caller) setRequestCaller(c, caller);
    await next();
  });
  outer.route('/', adminRoutes(surfaceContext(scope), full));
  return outer;
}

const ADMIN: CallerContext = { identity: 'ops', authMethod: 'api_key', admin: true };
const USER: CallerContext = { identity: 'dev', authMethod: 'api_key', toolsets: ['time'] };

describe('adminRoutes', () => {
  it('answers who the caller is', async () => {
    const answer = await app({ authEnabled: true }, USER).request('/api/admin/session');
    expect(await answer.json()).toMatchObject({
      identity: 'dev',
      admin: false,
      toolsets: ['time'],
      authEnabled: true,
    });
    const open = await app({ authEnabled: false }).request('/api/admin/session');
    expect(await open.json()).toMatchObject({ identity: 'anonymous', admin: true, authEnabled: false });
  });

  it('refuses sources, activity, config and reconnect to a non-admin identity with 403 forbidden', async () => {
    const reconnect = vi.fn(async () => {});
    const gateway = app({ authEnabled: true, reconnect }, USER);
    for (const [method, path] of [
      ['GET', '/api/admin/sources'],
      ['GET', '/api/admin/activity'],
      ['GET', '/api/admin/activity/stats'],
      ['GET', '/api/admin/config'],
      ['POST', '/api/admin/config/validate'],
      ['POST', '/api/admin/sources/a/reconnect'],
    ] as const) {
      const answer = await gateway.request(path, { method });
      expect(answer.status, path).toBe(403);
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('forbidden');
    }
    expect(reconnect).not.toHaveBeenCalled();
  });

  it('lets an admin reconnect, and reports an unknown server as 404 not_found', async () => {
    const reconnect = vi.fn(async (name: string) => {
      if (name !== 'a') throw new GatewayError('not_found', `No downstream MCP server named "${name}"`);
    });
    const gateway = app({ authEnabled: true, reconnect }, ADMIN);
    expect((await gateway.request('/api/admin/sources/a/reconnect', { method: 'POST' })).status).toBe(200);
    const missing = await gateway.request('/api/admin/sources/zz/reconnect', { method: 'POST' });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('not_found');
    expect(reconnect).toHaveBeenCalledTimes(2);
  });

  it('streams recorded calls as SSE, resuming after Last-Event-ID', async () => {
    const activity = new ActivityFeed();
    const call = (id: string) =>
      activity.middleware(
        { tool: { id }, args: { password: 'p' }, ctx: { caller: { identity: 'x' } } } as unknown as RunCall,
        async () => ({ content: [] }),
      );
    await call('t:1');
    await call('t:2');
    const answer = await app({ authEnabled: true, activity }, ADMIN).request('/api/admin/activity', {
      headers: { 'last-event-id': '1' },
    });
    expect(answer.headers.get('content-type')).toContain('text/event-stream');
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while (!text.includes('t:3')) {
      const chunk = await reader.read();
      text += new TextDecoder().decode(chunk.value);
      if (text.includes('t:2') && !text.includes('t:3')) await call('t:3');
    }
    await reader.cancel();
    expect(text).not.toContain('"t:1"');
    expect(text).toMatch(/event: call\ndata: [^\n]*"t:2"[^\n]*\nid: 2\n/);
    expect(text).toContain('[REDACTED]');
    expect(text).not.toContain('"p"');
  });

  it('runs code in the caller scope, and rejects a bad body or disabled code mode with its code', async () => {
    const executeCode = vi.fn(async () => ({ value: 3, logs: [], toolCalls: [], durationMs: 1 }));
    const gateway = app({ authEnabled: true, executeCode }, USER);
    const post = (body: unknown) =>
      gateway.request('/api/admin/code', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const ok = await post({ code: 'return 3' });
    expect(await ok.json()).toMatchObject({ value: 3 });
    expect(executeCode).toHaveBeenCalledWith(scope, { code: 'return 3' }, USER);
    const bad = await post({ code: '' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('validation_input');
    const badLanguage = await post({ code: 'x', language: 'python' });
    expect(badLanguage.status).toBe(400);
    const off = await app({ authEnabled: false }).request('/api/admin/code', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"code":"1"}',
    });
    expect(off.status).toBe(400);
    expect(((await off.json()) as { error: { message: string } }).error.message).toMatch(/disabled/);
  });

  it('gives a visible tool in every export format, and 404 tool_not_found for one out of scope', async () => {
    const gateway = app({ authEnabled: true }, USER);
    const answer = await gateway.request('/api/admin/tools/geo:route/formats');
    const body = (await answer.json()) as { formats: Record<string, { value: unknown }> };
    expect(Object.keys(body.formats).sort()).toEqual(
      ['a2a', 'anthropic', 'gemini', 'mcp', 'openai', 'openai-responses', 'typescript'].sort(),
    );
    expect(body.formats.anthropic?.value).toMatchObject({ input_schema: { required: ['from'] } });
    expect(body.formats.typescript?.value).toContain('from: string');
    const missing = await gateway.request('/api/admin/tools/geo:nope/formats');
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('tool_not_found');
  });

  it('validates a pasted config for an admin, and refuses a body without text as validation_input', async () => {
    const gateway = app({ authEnabled: true }, ADMIN);
    const post = (body: unknown) =>
      gateway.request('/api/admin/config/validate', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect(await (await post({ text: 'server: {}' })).json()).toEqual({ valid: true });
    expect(await (await post({ text: 'bad' })).json()).toEqual({ valid: false });
    for (const body of [{}, { text: 1 }, { text: 'x', format: 'toml' }]) {
      const answer = await post(body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('validation_input');
    }
  });

  // The contract's types stop a handler returning a wrong field; an extra one only a parse finds.
  it("answers in the contract's shapes, with no field the contract does not declare", async () => {
    const executeCode = async () => ({ value: 3, logs: [], toolCalls: [], durationMs: 1 });
    const gateway = app({ authEnabled: true, executeCode }, ADMIN);
    const checks: [AdminOperationId, string, unknown?][] = [
      ['adminSession', '/api/admin/session'],
      ['adminToolFormats', '/api/admin/tools/geo:route/formats'],
      ['adminTokens', '/api/admin/tokens'],
      ['adminSources', '/api/admin/sources'],
      ['adminReconnect', '/api/admin/sources/a/reconnect', {}],
      ['adminActivityStats', '/api/admin/activity/stats'],
      ['adminConfig', '/api/admin/config'],
      ['adminExecuteCode', '/api/admin/code', { code: 'return 3' }],
    ];
    for (const [id, path, body] of checks) {
      const answer = await gateway.request(
        path,
        body === undefined
          ? {}
          : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
      );
      expect(answer.status, path).toBe(200);
      const json: unknown = await answer.json();
      const schema = ADMIN_API[id].response;
      if (schema === 'text/event-stream') throw new Error(`${id} streams`);
      // A parse drops undeclared keys: equal means every key is declared, and every field valid.
      expect(schema.parse(json), path).toEqual(json);
    }
  });

  it('names every bad field of a body in the 400, under the prefix the operation gives', async () => {
    const gateway = app(
      { authEnabled: true, executeCode: async () => ({ value: 1, logs: [], toolCalls: [], durationMs: 0 }) },
      USER,
    );
    const post = async (body: string) =>
      (await (
        await gateway.request('/api/admin/code', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        })
      ).json()) as { error: { code: string; message: string; details: { issues: unknown[] } } };
    const both = await post('{"code":"","language":"python"}');
    expect(both.error.message).toBe('Invalid code request: /code must be a non-empty string');
    expect(both.error.details.issues).toEqual([
      { path: '/code', message: 'must be a non-empty string' },
      { path: '/language', message: 'must be "javascript" or "typescript"' },
    ]);
    expect((await post('[1]')).error.message).toBe('Invalid code request: / must be a JSON object');
  });

  it('answers a fault that is not a GatewayError as 500 internal, through the one error handler', async () => {
    const gateway = app(
      {
        authEnabled: true,
        reconnect: async () => {
          throw new Error('socket closed');
        },
      },
      ADMIN,
    );
    const answer = await gateway.request('/api/admin/sources/a/reconnect', { method: 'POST' });
    expect(answer.status).toBe(500);
    expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('internal');
  });

  it('answers unknown admin routes with 404 not_found', async () => {
    const answer = await app({ authEnabled: false }).request('/api/admin/nope');
    expect(answer.status).toBe(404);
  });

  describe('POST /api/admin/sources/{name}/login', () => {
    const oauth = () => ({
      perUser: (name: string) => (name === 'team' ? true : name === 'shared' ? false : undefined),
      login: vi.fn(async (name: string, identity: string) => ({
        loginUrl: `https://as.test/auth?${name}&${identity}`,
      })),
    });

    it("starts a per-user server's login for the caller's own identity, admin or not", async () => {
      const parts = oauth();
      const answer = await app({ authEnabled: true, oauth: parts }, USER).request(
        '/api/admin/sources/team/login',
        {
          method: 'POST',
        },
      );
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ loginUrl: 'https://as.test/auth?team&dev' });
      expect(parts.login).toHaveBeenCalledWith('team', 'dev');
    });

    it('lets only an admin start the shared login, which fills the shared token set', async () => {
      const parts = oauth();
      const refused = await app({ authEnabled: true, oauth: parts }, USER).request(
        '/api/admin/sources/shared/login',
        {
          method: 'POST',
        },
      );
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('forbidden');
      expect(parts.login).not.toHaveBeenCalled();
      const admin = await app({ authEnabled: true, oauth: parts }, ADMIN).request(
        '/api/admin/sources/shared/login',
        {
          method: 'POST',
        },
      );
      expect(admin.status).toBe(200);
      expect(parts.login).toHaveBeenCalledWith('shared', '');
    });

    it('answers 404 not_found for a server without OAuth, or when no server uses it', async () => {
      for (const gateway of [
        app({ authEnabled: true, oauth: oauth() }, ADMIN),
        app({ authEnabled: true }, ADMIN),
      ]) {
        const answer = await gateway.request('/api/admin/sources/plain/login', { method: 'POST' });
        expect(answer.status).toBe(404);
        expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('not_found');
      }
    });

    it("passes the gateway's own error through with its code", async () => {
      const parts = {
        ...oauth(),
        login: async () => {
          throw new GatewayError(
            'invalid_request',
            'This gateway completes OAuth logins only on a loopback bind',
          );
        },
      };
      const answer = await app({ authEnabled: true, oauth: parts }, ADMIN).request(
        '/api/admin/sources/shared/login',
        {
          method: 'POST',
        },
      );
      expect(answer.status).toBe(400);
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
    });
  });
});
