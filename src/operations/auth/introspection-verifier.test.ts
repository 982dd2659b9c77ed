import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { IntrospectionVerifier } from './introspection-verifier.js';
import { identityClaims } from './jwt-verifier.js';

/** A fake introspection endpoint: answers from `tokens`, counts requests, records the last one. */
function endpoint(tokens: Map<string, Record<string, unknown>>) {
  const seen: { authorization: string | null; body: string }[] = [];
  const fake: typeof fetch = async (_url, init) => {
    const body = String(init?.body);
    seen.push({ authorization: new Headers(init?.headers).get('authorization'), body });
    const token = new URLSearchParams(body).get('token') ?? '';
    return Response.json(tokens.get(token) ?? { active: false });
  };
  return { fake, seen };
}

describe('IntrospectionVerifier', () => {
  const options = { url: 'https://idp.example/introspect', clientId: 'gw', clientSecret: 's3cret' };

  it('makes an identity of an active token, authenticating as the gateway client (Basic)', async () => {
    const { fake, seen } = endpoint(new Map([['t1', { active: true, sub: 'ana', scope: 'mcp' }]]));
    const verifier = new IntrospectionVerifier({ ...options, fetch: fake });
    const identity = await verifier.verify('t1');
    expect(identity).toEqual({ identity: 'ana', method: 'introspection' });
    expect(identityClaims(identity)).toMatchObject({ sub: 'ana', scope: 'mcp' });
    expect(seen[0]?.authorization).toBe(`Basic ${Buffer.from('gw:s3cret').toString('base64')}`);
    expect(new URLSearchParams(seen[0]?.body).get('token')).toBe('t1');
  });

  it('falls back to client_id for client-credentials tokens, and refuses an inactive one', async () => {
    const { fake } = endpoint(new Map([['cc', { active: true, client_id: 'robot' }]]));
    const verifier = new IntrospectionVerifier({ ...options, fetch: fake });
    expect((await verifier.verify('cc')).identity).toBe('robot');
    const refused = await verifier.verify('nope').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(GatewayError);
    expect(refused).toMatchObject({ code: 'unauthorized', details: { reason: 'invalid_token' } });
  });

  it('reuses an active answer for cacheMs, but never past the token exp', async () => {
    let now = 1_000_000;
    const tokens = new Map<string, Record<string, unknown>>([
      ['long', { active: true, sub: 'a', exp: (now + 3_600_000) / 1000 }],
      ['short', { active: true, sub: 'b', exp: (now + 2_000) / 1000 }],
    ]);
    const { fake, seen } = endpoint(tokens);
    const verifier = new IntrospectionVerifier({ ...options, fetch: fake, cacheMs: 10_000, now: () => now });
    await verifier.verify('long');
    await verifier.verify('short');
    await verifier.verify('long');
    await verifier.verify('short');
    expect(seen).toHaveLength(2);
    now += 3_000; // past short's exp, within cacheMs
    tokens.set('short', { active: false });
    await expect(verifier.verify('short')).rejects.toMatchObject({ code: 'unauthorized' });
    await verifier.verify('long');
    expect(seen).toHaveLength(3);
    now += 10_000; // past cacheMs: a revoked token is seen as such
    tokens.set('long', { active: false });
    await expect(verifier.verify('long')).rejects.toMatchObject({ code: 'unauthorized' });
  });

  it('asks every time with cacheMs 0, and refuses an active answer whose exp has passed', async () => {
    const { fake, seen } = endpoint(
      new Map([
        ['old', { active: true, sub: 'c', exp: 1 }],
        ['t', { active: true, sub: 'd' }],
      ]),
    );
    const verifier = new IntrospectionVerifier({ ...options, fetch: fake, cacheMs: 0 });
    await verifier.verify('t');
    await verifier.verify('t');
    expect(seen).toHaveLength(2);
    await expect(verifier.verify('old')).rejects.toMatchObject({ code: 'unauthorized', message: /expired/ });
  });

  it('is backend_unavailable when the endpoint fails, not unauthorized', async () => {
    const down = new IntrospectionVerifier({
      ...options,
      fetch: async () => {
        throw new TypeError('fetch failed');
      },
    });
    await expect(down.verify('t')).rejects.toMatchObject({ code: 'backend_unavailable' });
    const denied = new IntrospectionVerifier({
      ...options,
      fetch: async () => new Response('no', { status: 401 }),
    });
    await expect(denied.verify('t')).rejects.toMatchObject({
      code: 'backend_unavailable',
      message: /HTTP 401/,
    });
  });

  it('reads toolsets and admin from the answer like JWT claims', async () => {
    const { fake } = endpoint(new Map([['t', { active: true, sub: 'e', ts: 'time docs', adm: ['admin'] }]]));
    const verifier = new IntrospectionVerifier({
      ...options,
      fetch: fake,
      toolsetsClaim: 'ts',
      adminClaim: 'adm',
    });
    expect(await verifier.verify('t')).toMatchObject({ toolsets: ['time', 'docs'], admin: true });
  });
});
