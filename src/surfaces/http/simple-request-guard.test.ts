import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { simpleRequestGuard } from './simple-request-guard.js';

function app(): { app: Hono; ran: string[] } {
  const ran: string[] = [];
  const app = new Hono();
  app.use('*', simpleRequestGuard());
  app.all('*', (c) => {
    ran.push(`${c.req.method} ${c.req.path}`);
    return c.json({ ok: true });
  });
  return { app, ran };
}

describe('simpleRequestGuard (regression: a form post from another localhost port reloaded the config)', () => {
  it('refuses every POST body a cross-site form or no-cors fetch can send', async () => {
    const { app: guarded, ran } = app();
    const bodies: [string | undefined, string][] = [
      ['text/plain', '{"code":"x"}'],
      ['text/plain;charset=UTF-8', '{}'],
      ['application/x-www-form-urlencoded', 'a=1'],
      ['multipart/form-data; boundary=x', '--x--'],
      [undefined, '{}'], // a Blob without a type: no Content-Type at all
      ['text/plain; application/json', '{}'],
    ];
    for (const method of ['POST']) {
      for (const [type, body] of bodies) {
        const response = await guarded.request('/api/admin/reload', {
          method,
          body,
          headers: type === undefined ? {} : { 'content-type': type },
        });
        expect(response.status, `${method} ${type}`).toBe(415);
        expect(await response.json()).toMatchObject({
          success: false,
          error: { code: 'unsupported_media_type' },
        });
      }
    }
    expect(ran).toEqual([]);
  });

  it('refuses a bodiless state-changing request with no header a simple request cannot send', async () => {
    const { app: guarded, ran } = app();
    for (const path of ['/api/admin/reload', '/api/tools/fixture:ping', '/api/admin/sources/a/reconnect']) {
      const response = await guarded.request(path, { method: 'POST' });
      expect(response.status).toBe(415);
      expect(((await response.json()) as { error: { message: string } }).error.message).toContain(
        'x-aperture-request',
      );
    }
    expect(ran).toEqual([]);
  });

  it('answers JSON-RPC endpoints in the JSON-RPC error shape', async () => {
    const { app: guarded } = app();
    for (const path of ['/mcp', '/mcp/dev', '/messages', '/a2a']) {
      const response = await guarded.request(path, {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'text/plain' },
      });
      expect(response.status).toBe(415);
      expect(await response.json()).toMatchObject({
        jsonrpc: '2.0',
        error: { data: { code: 'unsupported_media_type' } },
      });
    }
  });

  it('lets through JSON bodies, marked or authenticated bodiless requests, and safe methods', async () => {
    const { app: guarded, ran } = app();
    const ok = [
      guarded.request('/api/admin/code', {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json' },
      }),
      guarded.request('/x', {
        method: 'PATCH',
        body: '{}',
        headers: { 'content-type': 'application/merge-patch+json; charset=utf-8' },
      }),
      guarded.request('/api/admin/reload', { method: 'POST', headers: { 'x-aperture-request': '1' } }),
      guarded.request('/mcp', { method: 'DELETE', headers: { 'mcp-session-id': 's' } }),
      guarded.request('/api/admin/reload', { method: 'POST', headers: { authorization: 'Bearer t' } }),
      guarded.request('/api/admin/reload', { method: 'POST', headers: { 'x-api-key': 'k' } }),
      guarded.request('/api/tools', { method: 'GET' }),
      guarded.request('/api/tools', { method: 'OPTIONS' }),
      // Never simple: a browser preflights these, and no form sends them.
      guarded.request('/api/tools', { method: 'DELETE' }),
      guarded.request('/mcp', { method: 'PUT', body: '{}', headers: { 'content-type': 'text/plain' } }),
    ];
    for (const response of await Promise.all(ok)) expect(response.status).toBe(200);
    expect(ran).toHaveLength(10);
  });
});
