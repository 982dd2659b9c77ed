import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import type { AuthIdentity } from '../../operations/auth/auth-identity.js';
import type { Credentials } from '../../operations/auth/authenticator.js';
import { authFailure } from '../../operations/auth/jwt-verifier.js';
import { authMiddleware, scopeError } from './auth-middleware.js';
import { requestCaller } from './request-caller.js';

/** An authenticator answering by the token: `good`, `scoped`, `missing` claim, `down`, `boom`. */
const authenticator = {
  async authenticate(credentials: Credentials): Promise<AuthIdentity> {
    const token = credentials.authorization?.replace(/^Bearer /, '') ?? credentials.apiKey;
    if (token === undefined) throw authFailure('unauthorized', 'missing', 'Credentials required');
    if (token === 'good') return { identity: 'ci', method: 'api_key' };
    if (token === 'scoped') return { identity: 'bot', method: 'jwt', toolsets: ['time'] };
    if (token === 'noclaim') throw authFailure('forbidden', 'insufficient_scope', 'no "toolsets" claim');
    if (token === 'down') throw new GatewayError('backend_unavailable', 'JWKS down');
    if (token === 'boom') throw new Error('bug');
    throw authFailure('unauthorized', 'invalid_token', 'The token is "bad"\nreally');
  },
};

function app(withMetadata = true) {
  const hono = new Hono();
  hono.use(
    '*',
    authMiddleware({
      authenticator,
      isPublic: (path) => path === '/healthz',
      ...(withMetadata
        ? { resourceMetadataUrl: () => 'https://gw.example/.well-known/oauth-protected-resource' }
        : {}),
      log: silentLogger,
    }),
  );
  hono.get('/healthz', (c) => c.json({ caller: requestCaller(c) ?? null }));
  hono.get('/api', (c) => c.json({ caller: requestCaller(c) ?? null }));
  return hono;
}

const get = (path: string, headers: Record<string, string> = {}, withMetadata = true) =>
  app(withMetadata).request(path, { headers });

describe('authMiddleware', () => {
  it('records the caller of valid credentials, with its grants', async () => {
    const response = await get('/api', { authorization: 'Bearer scoped' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      caller: { identity: 'bot', authMethod: 'jwt', toolsets: ['time'] },
    });
    expect(await (await get('/api', { 'x-api-key': 'good' })).json()).toEqual({
      caller: { identity: 'ci', authMethod: 'api_key' },
    });
  });

  it('401 without credentials: a challenge without an error code, resource_metadata when OAuth is set', async () => {
    const response = await get('/api');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      'Bearer realm="aperture", resource_metadata="https://gw.example/.well-known/oauth-protected-resource"',
    );
    expect(await response.json()).toEqual({
      success: false,
      error: { code: 'unauthorized', message: 'Credentials required' },
    });
    expect((await get('/api', {}, false)).headers.get('www-authenticate')).toBe('Bearer realm="aperture"');
  });

  it('401 invalid_token for bad credentials, the description made safe for a quoted string', async () => {
    const response = await get('/api', { authorization: 'Bearer nope' }, false);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer realm="aperture", error="invalid_token", error_description="The token is 'bad'?really"`,
    );
  });

  it('403 insufficient_scope, 503 when keys are unavailable, 500 for anything else', async () => {
    const forbidden = await get('/api', { authorization: 'Bearer noclaim' }, false);
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(((await forbidden.json()) as { error: { code: string } }).error.code).toBe('forbidden');
    const down = await get('/api', { authorization: 'Bearer down' });
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('5');
    expect(((await down.json()) as { error: { code: string } }).error.code).toBe('backend_unavailable');
    const boom = await get('/api', { authorization: 'Bearer boom' });
    expect(boom.status).toBe(500);
    expect(await boom.json()).toEqual({
      success: false,
      error: { code: 'internal', message: 'Internal error' },
    });
  });

  it('lets public paths through without credentials; valid ones are still recorded, bad ones ignored', async () => {
    expect(await (await get('/healthz')).json()).toEqual({ caller: null });
    expect(await (await get('/healthz', { authorization: 'Bearer nope' })).json()).toEqual({ caller: null });
    expect(await (await get('/healthz', { authorization: 'Bearer good' })).json()).toEqual({
      caller: { identity: 'ci', authMethod: 'api_key' },
    });
  });
});

describe('scopeError', () => {
  it('maps not_found to 404 and forbidden to 403 with an insufficient_scope challenge; rethrows others', async () => {
    const hono = new Hono();
    hono.get('/:code', (c) => scopeError(c, new GatewayError(c.req.param('code') as 'not_found', 'nope')));
    hono.onError((_error, c) => c.text('rethrown', 500));
    expect((await hono.request('/not_found')).status).toBe(404);
    const forbidden = await hono.request('/forbidden');
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get('www-authenticate')).toBe(
      'Bearer error="insufficient_scope", error_description="nope"',
    );
    const internal = await hono.request('/internal');
    expect(internal.status).toBe(500);
    expect(await internal.text()).toBe('rethrown');
  });
});
