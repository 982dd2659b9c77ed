import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/operations/create-logger.js';
import { SqliteStateStore } from '../../src/operations/state/sqlite-state-store.js';
import { OAuthCredentialStore } from '../../src/sources/mcp/oauth/oauth-credential-store.js';
import { createTokenCipher } from '../../src/sources/mcp/oauth/token-cipher.js';
import {
  type AuthorizationServer,
  driveLogin,
  type ProtectedMcpServer,
  startAuthorizationServer,
  startProtectedMcpServer,
} from '../support/oauth-servers.js';
import { type RunningGateway, startHttpGateway } from './gateway-process.js';
import { loginAs, runLogin, waitReady } from './oauth-cli.js';

const TOKEN_KEY = 'per-user-token-key-0123456789abcdef';
const KEYS = {
  alice: 'alice-key-0123456789abcdef0123456789',
  bob: 'bob-key-0123456789abcdef0123456789ab',
  carol: 'carol-key-0123456789abcdef0123456789',
};

const silentLogger = () => createLogger({ level: 'silent', mask: [] });

type Failure = { code: string; message: string; details?: Record<string, unknown> };

describe('per-user OAuth tokens (oauth.perUser with gateway API keys)', () => {
  let dir: string;
  let config: string;
  let as: AuthorizationServer;
  let team: ProtectedMcpServer;
  let gateway: RunningGateway | undefined;
  const env = { ...process.env, PER_USER_TOKEN_KEY: TOKEN_KEY };

  const call = async (who: keyof typeof KEYS) => {
    if (!gateway) throw new Error('no gateway');
    const response = await fetch(`${gateway.url}/api/tools/team:whoami`, {
      method: 'POST',
      headers: { 'x-api-key': KEYS[who], 'content-type': 'application/json' },
      body: '{}',
    });
    return {
      status: response.status,
      body: (await response.json()) as {
        success: boolean;
        result?: { structuredContent?: { sub: string } };
        error?: Failure;
      },
    };
  };

  beforeAll(async () => {
    process.env.PER_USER_TOKEN_KEY = TOKEN_KEY;
    dir = mkdtempSync(path.join(tmpdir(), 'aperture-oauth-users-'));
    let issuer = '';
    team = await startProtectedMcpServer(() => issuer);
    as = await startAuthorizationServer({ resources: () => [team.url], accessTokenTtlSec: 60 });
    issuer = as.issuer;
    config = path.join(dir, 'aperture.yaml');
    writeFileSync(
      config,
      [
        'server: { name: per-user-e2e }',
        'tools: { builtin: false }',
        'auth:',
        '  apiKeys:',
        ...Object.entries(KEYS).map(([name, key]) => `    - { name: ${name}, key: "${key}" }`),
        'servers:',
        `  team: { url: "${team.url}", transport: streamable-http, oauth: { perUser: true } }`,
        `state: { dir: "${path.join(dir, 'state')}", tokenKey: "\${secret:PER_USER_TOKEN_KEY}" }`,
        '',
      ].join('\n'),
    );
  }, 30_000);

  afterAll(async () => {
    await gateway?.[Symbol.asyncDispose]();
    await team?.[Symbol.asyncDispose]();
    await as?.[Symbol.asyncDispose]();
    rmSync(dir, { recursive: true, force: true });
  });

  it('each user’s call carries that user’s token; a user without one gets auth_required', async () => {
    // The operator's login lists the tools; each user logs in for their own identity.
    for (const [user, account] of [
      [undefined, 'operator'],
      ['alice', 'alice'],
      ['bob', 'bob'],
    ] as const) {
      const args = ['team', '--no-open', '--config', config, ...(user ? ['--user', user] : [])];
      const login = await runLogin(args, env, loginAs(account));
      expect(login.code, login.stderr).toBe(0);
    }
    // One registration serves every identity's login.
    expect(as.registrations()).toBe(1);
    gateway = await startHttpGateway(['--config', config], dir);
    await waitReady(gateway.url);

    // Interleaved, so a token left over from the previous call would show.
    for (const who of ['alice', 'bob', 'alice', 'bob'] as const) {
      const { status, body } = await call(who);
      expect(status).toBe(200);
      expect(body.result?.structuredContent).toEqual({ sub: who });
    }
    const carol = await call('carol');
    expect(carol.status).toBe(401);
    expect(carol.body.error?.code).toBe('auth_required');
    expect(carol.body.error?.details).toMatchObject({
      server: 'team',
      login: 'aperture login team --user carol',
    });
    // The gateway hands carol a login of her own: open the URL, log in, and her calls work.
    const loginUrl = String(carol.body.error?.details?.loginUrl ?? '');
    expect(loginUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/auth\?/);
    expect(new URL(loginUrl).searchParams.get('redirect_uri')).toBe(`${gateway?.url}/oauth/callback`);
    expect((await call('carol')).body.error?.details?.loginUrl).toBe(loginUrl);
    const callback = await driveLogin(loginUrl, 'carol');
    const landed = await fetch(callback);
    expect(await landed.text()).toContain('Logged in to team as carol');
    expect(landed.status).toBe(200);
    expect((await call('carol')).body.result?.structuredContent).toEqual({ sub: 'carol' });
    // A login link is used once.
    expect((await fetch(callback)).status).toBe(400);
    // Carol's failure did not spill onto the others.
    expect((await call('alice')).body.result?.structuredContent).toEqual({ sub: 'alice' });
    expect(team.calls.get('operator')).toBeUndefined();
  }, 90_000);

  it('shows per-user token status; the state files hold no token in the clear', async () => {
    const status = await runLogin(['--status', '--json', '--config', config], env);
    const parsed = JSON.parse(status.stdout) as Record<string, { identity: string; tokens: boolean }[]>;
    expect(parsed.team?.map((set) => [set.identity, set.tokens])).toEqual([
      ['', true],
      ['alice', true],
      ['bob', true],
      ['carol', true],
    ]);
    const files = readdirSync(path.join(dir, 'state')).map((file) =>
      readFileSync(path.join(dir, 'state', file)).toString('latin1'),
    );
    expect(team.tokens.size).toBeGreaterThanOrEqual(3);
    for (const text of files) {
      for (const token of [...team.tokens, ...as.refreshTokens]) expect(text.includes(token)).toBe(false);
    }
    // The tokens open with the key, and only with it.
    const state = new SqliteStateStore(path.join(dir, 'state'), { log: silentLogger() });
    try {
      const withKey = new OAuthCredentialStore(state, createTokenCipher(TOKEN_KEY));
      expect(team.tokens.has(withKey.tokens('team', 'alice')?.tokens.access_token ?? '')).toBe(true);
      const otherKey = new OAuthCredentialStore(state, createTokenCipher(`${TOKEN_KEY}-other`));
      expect(() => otherKey.tokens('team', 'alice')).toThrow(/cannot be decrypted/);
    } finally {
      state.close();
    }
  }, 30_000);
});
