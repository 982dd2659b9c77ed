import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { setRequestCaller } from './request-caller.js';
import { trustRoutes } from './trust-routes.js';

/** The routes behind a stand-in for the auth middleware that sets the given caller. */
function app(authEnabled: boolean, caller?: { identity: string; admin?: boolean }) {
  const approved: string[][] = [];
  const outer = new Hono();
  outer.use('*', async (c, next) => {
    if (caller) setRequestCaller(c, caller);
    await next();
  });
  outer.route(
    '/',
    trustRoutes({
      authEnabled,
      maxBodyBytes: 1024,
      trust: {
        readiness: () => ({ mode: 'quarantine', quarantined: [], warned: [] }),
        approve: (ids) => {
          approved.push([...ids]);
          return Object.fromEntries(ids.map((id) => [id, id === 'a:b' ? 'approved' : 'unknown']));
        },
      },
    }),
  );
  const post = (body: string) =>
    outer.request('/api/admin/trust/approve', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
  return { outer, post, approved };
}

describe('trustRoutes', () => {
  it('needs an admin identity when auth is on, and changes nothing otherwise', async () => {
    const { outer, post, approved } = app(true, { identity: 'ops' });
    const refused = await post('{"ids":["a:b"]}');
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('forbidden');
    expect((await outer.request('/api/admin/trust')).status).toBe(403);
    expect(approved).toEqual([]);

    const admin = app(true, { identity: 'root', admin: true });
    const ok = await admin.post('{"ids":["a:b","x:y"]}');
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ outcomes: { 'a:b': 'approved', 'x:y': 'unknown' } });
  });

  it('refuses malformed bodies with invalid_request', async () => {
    const { post, approved } = app(false);
    for (const body of ['', 'not json', '{"ids":"a:b"}', '{"ids":[1]}', '{"ids":[]}']) {
      const answer = await post(body);
      expect(answer.status, body).toBe(400);
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
    }
    expect(approved).toEqual([]);
  });
});
