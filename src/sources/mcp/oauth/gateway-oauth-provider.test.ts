import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStateStore } from '../../../foundation/ports/memory-state-store.js';
import { createLogger } from '../../../operations/create-logger.js';
import { GatewayOAuthProvider, type OAuthSettings } from './gateway-oauth-provider.js';
import { OAuthCredentialStore } from './oauth-credential-store.js';
import { runAsIdentity } from './oauth-identity.js';
import { createTokenCipher } from './token-cipher.js';

const log = createLogger({ level: 'silent' });
const SETTINGS: OAuthSettings = { grant: 'authorization_code', perUser: true };

/** A token endpoint on loopback: answers refreshes as `answer` says, counting them. */
async function tokenEndpoint(answer: (refreshToken: string) => { status: number; body: unknown }) {
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      const refreshToken = new URLSearchParams(body).get('refresh_token') ?? '';
      requests.push(refreshToken);
      const { status, body: json } = answer(refreshToken);
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  servers.push(server);
  return { issuer, requests };
}
const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

function setup(issuer: string, now: { t: number }) {
  const store = new OAuthCredentialStore(new MemoryStateStore(), createTokenCipher('k'.repeat(32)));
  store.saveClient('team', { client_id: 'c1' });
  store.saveDiscovery('team', {
    authorizationServerUrl: issuer,
    authorizationServerMetadata: {
      issuer,
      authorization_endpoint: `${issuer}/auth`,
      token_endpoint: `${issuer}/token`,
      response_types_supported: ['code'],
    },
    resourceMetadata: { resource: 'http://127.0.0.1:1/mcp', authorization_servers: [issuer] },
  });
  let identity = '';
  const provider = new GatewayOAuthProvider({
    server: 'team',
    url: 'http://127.0.0.1:1/mcp',
    settings: SETTINGS,
    store,
    identity: () => identity,
    log,
    now: () => now.t,
  });
  return { store, provider, as: (who: string) => (identity = who) };
}

describe('GatewayOAuthProvider', () => {
  it('refreshes ahead of expiry, once for concurrent requests, and keeps the rotated token', async () => {
    const endpoint = await tokenEndpoint((rt) => ({
      status: 200,
      body: { access_token: `at-after-${rt}`, token_type: 'Bearer', expires_in: 10, refresh_token: `${rt}+` },
    }));
    const now = { t: 1_000_000 };
    const { store, provider } = setup(endpoint.issuer, now);
    store.saveTokens(
      'team',
      '',
      { access_token: 'at0', token_type: 'Bearer', expires_in: 10, refresh_token: 'rt0' },
      false,
      now.t,
    );
    expect((await provider.tokens())?.access_token).toBe('at0');
    now.t += 6_000; // 4 s left of 10: within half the lifetime
    const answers = await Promise.all([provider.tokens(), provider.tokens(), provider.tokens()]);
    expect(answers.map((t) => t?.access_token)).toEqual(['at-after-rt0', 'at-after-rt0', 'at-after-rt0']);
    expect(endpoint.requests).toEqual(['rt0']);
    expect(store.tokens('team', '')?.tokens.refresh_token).toBe('rt0+');
    expect(store.statuses('team')[0]?.lastRefreshAt).toBeDefined();
  });

  it('a refused refresh token drops the tokens and answers auth_required naming the login', async () => {
    const endpoint = await tokenEndpoint(() => ({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'revoked' },
    }));
    const now = { t: 1_000_000 };
    const { store, provider, as } = setup(endpoint.issuer, now);
    as('alice');
    store.saveTokens(
      'team',
      'alice',
      { access_token: 'a', token_type: 'Bearer', expires_in: 10, refresh_token: 'r' },
      false,
      now.t,
    );
    now.t += 9_000;
    await expect(provider.tokens()).rejects.toMatchObject({
      code: 'auth_required',
      details: { server: 'team', login: 'aperture login team --user alice', identity: 'alice' },
    });
    expect(store.tokens('team', 'alice')).toBeUndefined();
    expect(store.statuses('team').find((s) => s.identity === 'alice')).toMatchObject({
      tokens: false,
      lastRefreshError: expect.stringContaining('refresh refused'),
    });
  });

  it('an unreachable authorization server keeps the current token while it lasts', async () => {
    const endpoint = await tokenEndpoint(() => ({ status: 503, body: { error: 'server_error' } }));
    const now = { t: 1_000_000 };
    const { store, provider } = setup(endpoint.issuer, now);
    store.saveTokens(
      'team',
      '',
      { access_token: 'a', token_type: 'Bearer', expires_in: 10, refresh_token: 'r' },
      false,
      now.t,
    );
    now.t += 8_000;
    expect((await provider.tokens())?.access_token).toBe('a');
    expect(store.statuses('team')[0]?.lastRefreshError).toBeDefined();
    expect(store.tokens('team', '')).toBeDefined();
  });

  it('gives each identity only its own tokens, the operator’s to nobody else', async () => {
    const now = { t: 1_000_000 };
    const { store, provider } = setup('http://127.0.0.1:9', now);
    const identityProvider = new GatewayOAuthProvider({
      server: 'team',
      url: 'http://127.0.0.1:1/mcp',
      settings: SETTINGS,
      store,
      identity: () => currentOr(''),
      log,
    });
    store.saveTokens('team', '', { access_token: 'operator', token_type: 'Bearer' }, false);
    store.saveTokens('team', 'alice', { access_token: 'alice', token_type: 'Bearer' }, false);
    expect((await provider.tokens())?.access_token).toBe('operator');
    const [a, b] = await Promise.all([
      runAsIdentity('alice', async () => (await identityProvider.tokens())?.access_token),
      runAsIdentity('bob', async () => (await identityProvider.tokens())?.access_token),
    ]);
    expect([a, b]).toEqual(['alice', undefined]);
  });

  it('a serving gateway never registers a client or sends anyone to log in: auth_required', () => {
    const store = new OAuthCredentialStore(new MemoryStateStore(), createTokenCipher('k'.repeat(32)));
    const provider = new GatewayOAuthProvider({
      server: 'docs',
      url: 'http://127.0.0.1:1/mcp',
      settings: { grant: 'authorization_code', perUser: false },
      store,
      identity: () => '',
      log,
    });
    expect(() => provider.clientInformation()).toThrow(expect.objectContaining({ code: 'auth_required' }));
    expect(() => provider.redirectToAuthorization(new URL('http://127.0.0.1:2/auth'))).toThrow(
      /needs a login .*run: aperture login docs$/,
    );
  });

  it('a serving connection retrying in the background keeps the verifier of a login in progress', () => {
    const store = new OAuthCredentialStore(new MemoryStateStore(), createTokenCipher('k'.repeat(32)));
    const common = {
      server: 'docs',
      url: 'http://127.0.0.1:1/mcp',
      settings: { grant: 'authorization_code', perUser: false } as OAuthSettings,
      store,
      identity: () => '',
      log,
    };
    const login = new GatewayOAuthProvider({
      ...common,
      login: { redirectUrl: 'http://127.0.0.1:2/oauth/callback', state: 's1', onAuthorizationUrl: () => {} },
    });
    const serving = new GatewayOAuthProvider(common);
    login.saveCodeVerifier('verifier-of-the-login');
    // The supervisor reconnects while the person is still at the authorization server.
    serving.saveCodeVerifier('verifier-of-a-retry');
    expect(login.codeVerifier()).toBe('verifier-of-the-login');
  });
});

import { currentIdentity } from './oauth-identity.js';

function currentOr(fallback: string): string {
  return currentIdentity() ?? fallback;
}
