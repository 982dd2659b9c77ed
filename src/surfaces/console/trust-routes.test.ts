import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { setRequestCaller } from '../http/request-caller.js';
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

describe('trustRoutes answers', () => {
  const errorOf = async (answer: Response) =>
    ((await answer.json()) as { success: boolean; error: { code: string; message: string } }).error;

  it('names the expected body in the message of a body of the wrong shape, whatever is wrong with it', async () => {
    const { post, approved } = app(false);
    for (const body of ['{"ids":"a:b"}', '{"ids":[1]}', '{"ids":[]}', '{"ids":[""]}', '{}', '[]', '"a:b"']) {
      const answer = await post(body);
      expect(answer.status, body).toBe(400);
      expect(await errorOf(answer), body).toMatchObject({
        code: 'invalid_request',
        message: 'The body must be {"ids": ["namespace:tool", ...]} with at least one id',
      });
    }
    // A body that is no JSON at all is refused as such.
    expect(await errorOf(await post('not json'))).toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/^Malformed JSON/),
    });
    expect(approved).toEqual([]);
  });

  it('answers 404 not_found when no id names a tool seen, 200 with the outcomes when one does', async () => {
    const { post, approved } = app(false);
    const unknown = await post('{"ids":["x:y","p:q"]}');
    expect(unknown.status).toBe(404);
    expect(await errorOf(unknown)).toMatchObject({
      code: 'not_found',
      message: 'No tool seen with id "x:y", "p:q"',
    });
    const some = await post('{"ids":["x:y","a:b"],"note":"kept out"}');
    expect(some.status).toBe(200);
    expect(await some.json()).toEqual({ outcomes: { 'x:y': 'unknown', 'a:b': 'approved' } });
    expect(approved).toEqual([
      ['x:y', 'p:q'],
      ['x:y', 'a:b'],
    ]);
  });

  it('lists the trust state as the gateway gives it, for an admin or with auth off', async () => {
    for (const { outer } of [app(false), app(true, { identity: 'root', admin: true })]) {
      const answer = await outer.request('/api/admin/trust');
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ mode: 'quarantine', quarantined: [], warned: [] });
    }
  });

  it('refuses a non-admin with a message naming what needs an admin', async () => {
    const { outer } = app(true, { identity: 'ops' });
    expect(await errorOf(await outer.request('/api/admin/trust'))).toMatchObject({
      code: 'forbidden',
      message: 'Trust management needs an admin identity (auth.apiKeys[].admin: true)',
    });
  });

  it('refuses a request without credentials with 401 when auth is on, approving nothing', async () => {
    const { outer, post, approved } = app(true);
    expect((await outer.request('/api/admin/trust')).status).toBe(401);
    const refused = await post('{"ids":["a:b"]}');
    expect(refused.status).toBe(401);
    expect((await errorOf(refused)).code).toBe('unauthorized');
    expect(approved).toEqual([]);
  });
});
