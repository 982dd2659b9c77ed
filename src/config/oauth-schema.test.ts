import { describe, expect, it } from 'vitest';
import { configSchema } from './config-schema.js';

const KEY = { tokenKey: 'x'.repeat(32) };
const URL = 'https://mcp.example.com/mcp';
const parse = (raw: Record<string, unknown>) => configSchema.parse(raw);
const issues = (raw: Record<string, unknown>) => {
  const result = configSchema.safeParse(raw);
  if (result.success) throw new Error('expected the config to be refused');
  return result.error.issues.map((issue) => [issue.path.join('.'), issue.message]);
};

describe('servers.*.oauth and state.tokenKey', () => {
  it('oauth: {} means discovery, dynamic registration and the authorization-code flow', () => {
    const config = parse({ servers: { docs: { url: URL, oauth: {} } }, state: KEY });
    const docs = config.servers.docs;
    expect(docs?.kind === 'remote' && docs.oauth).toEqual({ grant: 'authorization_code', perUser: false });
    expect(config.state.tokenKey).toBe(KEY.tokenKey);
  });

  it('takes every documented key', () => {
    const oauth = {
      grant: 'client_credentials',
      clientId: 'app',
      clientSecret: 's',
      scopes: ['mcp'],
      perUser: false,
    };
    const docs = parse({ servers: { crm: { url: URL, oauth } }, state: KEY }).servers.crm;
    expect(docs?.kind === 'remote' && docs.oauth).toEqual(oauth);
  });

  it('refuses oauth without state.tokenKey: tokens are kept encrypted or not at all', () => {
    expect(issues({ servers: { docs: { url: URL, oauth: {} } } })).toEqual([
      ['state.tokenKey', expect.stringContaining('is required because server "docs" uses oauth')],
    ]);
  });

  it('refuses client_credentials without a client, per-user machines and a secret without an id', () => {
    expect(
      issues({ servers: { m: { url: URL, oauth: { grant: 'client_credentials' } } }, state: KEY }),
    ).toEqual([
      ['servers.m.oauth.clientId', expect.stringContaining('is required with grant "client_credentials"')],
    ]);
    expect(
      issues({
        auth: { apiKeys: [{ name: 'a', key: 'k'.repeat(32) }] },
        servers: { m: { url: URL, oauth: { grant: 'client_credentials', clientId: 'c', perUser: true } } },
        state: KEY,
      }),
    ).toEqual([['servers.m.oauth.perUser', expect.stringContaining('cannot be true')]]);
    expect(issues({ servers: { m: { url: URL, oauth: { clientSecret: 's' } } }, state: KEY })).toEqual([
      ['servers.m.oauth.clientSecret', 'needs "clientId" as well'],
    ]);
  });

  it('refuses perUser when the gateway does not authenticate callers', () => {
    expect(issues({ servers: { team: { url: URL, oauth: { perUser: true } } }, state: KEY })).toEqual([
      ['servers.team.oauth.perUser', expect.stringContaining('auth.apiKeys or auth.jwt')],
    ]);
  });

  it('names an unknown oauth key, and oauth on a stdio server', () => {
    expect(issues({ servers: { docs: { url: URL, oauth: { grants: 'x' } } }, state: KEY })[0]?.[0]).toBe(
      'servers.docs.oauth',
    );
    expect(issues({ servers: { local: { command: 'x', oauth: {} } }, state: KEY })[0]?.[0]).toBe(
      'servers.local',
    );
  });
});
