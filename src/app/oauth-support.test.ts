import { describe, expect, it } from 'vitest';
import { failure as expectFailure } from '../../test/support/expect-failure.js';
import { parseConfigValue } from '../config/load-config.js';
import { silentLogger } from '../foundation/ports/logger.js';
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
