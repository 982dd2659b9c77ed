import { Hono } from 'hono';
import { describe, expect, it, vi } from 'vitest';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { CallerContext } from '../../foundation/ports/tool-backend.js';
import { setRequestCaller } from '../http/request-caller.js';
import { adminReloadRoutes } from './admin-reload-route.js';

const OUTCOME = { changed: true, servers: { added: ['d'], removed: [], changed: [] } };

/** The route behind a stand-in for the auth middleware that sets `caller` (or nobody). */
function app(options: { auth: boolean; caller?: CallerContext; reload?: () => Promise<unknown> }) {
  const reload = vi.fn(options.reload ?? (async () => OUTCOME));
  const outer = new Hono();
  outer.use('*', async (c, next) => {
    if (options.caller) setRequestCaller(c, options.caller);
    await next();
  });
  outer.route('/', adminReloadRoutes({ reload, authRequired: options.auth }));
  return { outer, reload };
}

const post = (outer: Hono) => outer.request('/api/admin/reload', { method: 'POST' });

describe('POST /api/admin/reload', () => {
  it('reloads and answers what changed when auth is off (a loopback gateway)', async () => {
    const { outer, reload } = app({ auth: false });
    const res = await post(outer);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, result: OUTCOME });
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it('reloads for an admin identity', async () => {
    const { outer, reload } = app({ auth: true, caller: { identity: 'ops', admin: true } });
    expect((await post(outer)).status).toBe(200);
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it('refuses a caller that is not an admin with 403 forbidden, reloading nothing', async () => {
    const { outer, reload } = app({ auth: true, caller: { identity: 'dev' } });
    const res = await post(outer);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ success: false, error: { code: 'forbidden' } });
    expect(reload).not.toHaveBeenCalled();
  });

  it('refuses a request without credentials with 401 when auth is on', async () => {
    const { outer, reload } = app({ auth: true });
    const res = await post(outer);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ success: false, error: { code: 'unauthorized' } });
    expect(reload).not.toHaveBeenCalled();
  });

  it('answers a refused config as config_invalid with the status of the code table', async () => {
    const { outer } = app({
      auth: false,
      reload: async () => {
        throw new GatewayError('config_invalid', 'aperture.yaml: servers.x.command: Required');
      },
    });
    const res = await post(outer);
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({
      success: false,
      error: { code: 'config_invalid', message: expect.stringContaining('servers.x.command') },
    });
  });

  it('allows POST only', async () => {
    const { outer, reload } = app({ auth: false });
    const res = await outer.request('/api/admin/reload');
    expect(res.status).toBe(405);
    expect(reload).not.toHaveBeenCalled();
  });

  it('names what needs an admin, and the method to use', async () => {
    const { outer } = app({ auth: true, caller: { identity: 'dev' } });
    expect(await (await post(outer)).json()).toEqual({
      success: false,
      error: {
        code: 'forbidden',
        message: 'Reloading the config needs an admin identity (auth.apiKeys[].admin: true)',
        retryable: false,
      },
    });
    const wrong = await app({ auth: false }).outer.request('/api/admin/reload', { method: 'PUT' });
    expect(await wrong.json()).toEqual({
      success: false,
      error: {
        code: 'method_not_allowed',
        message: 'PUT is not allowed on /api/admin/reload; use POST',
        retryable: false,
      },
    });
  });
});
