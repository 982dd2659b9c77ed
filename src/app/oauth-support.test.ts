import { describe, expect, it } from 'vitest';
import { failure as expectFailure } from '../../test/support/expect-failure.js';
import { parseConfigValue } from '../config/load-config.js';
import { silentLogger } from '../foundation/ports/logger.js';
import { MemoryStateStore } from '../foundation/ports/memory-state-store.js';
import type { RunCall } from '../foundation/ports/run-middleware.js';
import type { CallerContext } from '../foundation/ports/tool-backend.js';
import { currentIdentity } from '../sources/mcp/oauth/oauth-identity.js';
import { OAuthSupport } from './oauth-support.js';

function support(): OAuthSupport {
  const { config } = parseConfigValue({
    servers: {
      // Port 9 (discard): nothing is contacted before the checks these tests make.
      shared: { url: 'http://127.0.0.1:9/mcp', oauth: {} },
      team: { url: 'http://127.0.0.1:9/mcp', oauth: { perUser: true } },
      local: { command: 'node', args: ['server.js'] },
    },
    auth: { apiKeys: [{ name: 'alice', key: 'oauth-support-alice-key-0123456789' }] },
    state: { tokenKey: 'oauth-support-test-key-0123456789abcdef' },
  });
  return new OAuthSupport(config, silentLogger);
}

describe('OAuthSupport.startLogin (the console’s Log in)', () => {
  it('knows which servers keep tokens per user, and which have no OAuth', () => {
    const oauth = support();
    expect(oauth.perUserServer('team')).toBe(true);
    expect(oauth.perUserServer('shared')).toBe(false);
    expect(oauth.perUserServer('local')).toBeUndefined();
    expect(oauth.perUserServer('nowhere')).toBeUndefined();
  });

  it('answers not_found for a server that is unknown or has no OAuth', async () => {
    for (const name of ['nowhere', 'local']) {
      const error = await expectFailure(support().startLogin(name, ''));
      expect(error.code).toBe('not_found');
      expect(error.message).toContain(`"${name}"`);
    }
  });

  it('refuses with invalid_request, naming the CLI login, while the gateway has no loopback callback', async () => {
    const oauth = support();
    const before = await expectFailure(oauth.startLogin('team', 'alice'));
    expect(before.code).toBe('invalid_request');
    expect(before.message).toContain('aperture login team --user alice');
    // A bind the authorization server would not redirect a native client to.
    oauth.listening('http://10.0.0.7:8080');
    const remote = await expectFailure(oauth.startLogin('shared', ''));
    expect(remote.code).toBe('invalid_request');
    expect(remote.message).toMatch(/aperture login shared$/);
  });
});

describe('OAuthSupport per-user token sets (one per method and identity)', () => {
  const runAs = async (oauth: OAuthSupport, caller: CallerContext): Promise<string | undefined> => {
    const middleware = oauth.middleware();
    if (!middleware) throw new Error('no per-user middleware');
    let seen: string | undefined;
    const call = { tool: { origin: { sourceId: 'mcp:team' } }, ctx: { caller } } as unknown as RunCall;
    await middleware(call, async () => {
      seen = currentIdentity();
      return { content: [] };
    });
    return seen;
  };

  it('runs an API key "alice" and a JWT subject "alice" with different token sets', async () => {
    const oauth = support();
    const apiKey = await runAs(oauth, { identity: 'alice', authMethod: 'api_key' });
    const jwt = await runAs(oauth, { identity: 'alice', authMethod: 'jwt' });
    // An API key's set stays under its bare name, where it always was; a subject's is jwt:NAME.
    expect(apiKey).toBe('alice');
    expect(jwt).toBe('jwt:alice');
    expect(await runAs(oauth, { identity: 'jwt:alice', authMethod: 'api_key' })).toBe('apikey:jwt:alice');
  });

  it('resolves `login --user NAME`: the API key of that name, else the JWT subject', () => {
    const oauth = support();
    expect(oauth.userKey('alice')).toBe('alice');
    expect(oauth.userKey('bob')).toBe('jwt:bob');
    expect(oauth.userKey('jwt:alice')).toBe('jwt:alice');
    expect(oauth.userKey('apikey:bob')).toBe('bob');
    expect(oauth.userKey('')).toBe('');
  });

  it('keeps a set stored under a bare name readable by its owner only, moving it once', () => {
    const oauth = support();
    oauth.bind(new MemoryStateStore());
    const tokens = (access: string) => ({ access_token: access, token_type: 'Bearer' });
    // Kept before sets told methods apart: "bob" (no API key of that name) and "alice" (one).
    oauth.store.saveTokens('team', 'bob', tokens('AT-bob'), false, 0);
    oauth.store.saveTokens('team', 'alice', tokens('AT-alice'), false, 0);
    expect(oauth.store.tokens('team', 'jwt:bob')?.tokens.access_token).toBe('AT-bob');
    expect(oauth.store.tokens('team', 'bob')).toBeUndefined();
    expect(oauth.store.statuses('team').map((set) => set.identity)).toEqual(['', 'alice', 'jwt:bob']);
    // The API key alice keeps its set; the subject alice does not get it.
    expect(oauth.store.tokens('team', 'jwt:alice')).toBeUndefined();
    expect(oauth.store.tokens('team', 'alice')?.tokens.access_token).toBe('AT-alice');
  });
});
