// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests write ${env:…} references on purpose.
import { describe, expect, it } from 'vitest';
import { assertToolsetReferences } from './access-schema.js';
import { parseConfigValue } from './load-config.js';

const KEY = 'k'.repeat(32);

function configError(raw: Record<string, unknown>): string {
  try {
    parseConfigValue(raw);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the config to be refused');
}

describe('toolsets section', () => {
  it('parses a full definition', () => {
    const { config } = parseConfigValue({
      toolsets: [
        {
          name: 'gh-read',
          description: 'Read GitHub',
          namespaces: ['github'],
          tags: ['read'],
          tools: ['github:*'],
          exclude: ['github:delete_*'],
          annotations: { readOnlyHint: 'true' },
        },
      ],
    });
    expect(config.toolsets[0]).toEqual({
      name: 'gh-read',
      description: 'Read GitHub',
      namespaces: ['github'],
      tags: ['read'],
      tools: ['github:*'],
      exclude: ['github:delete_*'],
      annotations: { readOnlyHint: true },
    });
  });

  it.each([
    [{ toolsets: [{ name: 'a b' }] }, 'toolsets[0].name: must be a toolset name'],
    [{ toolsets: [{ name: '../x' }] }, 'toolsets[0].name: must be a toolset name'],
    [
      { toolsets: [{ name: 'a' }, { name: 'a' }] },
      'toolsets[1].name: duplicate toolset name "a" (also toolsets[0])',
    ],
    [{ toolsets: [{ name: 'a', tags: [] }] }, 'toolsets[0].tags: must list at least one tag'],
    [
      { toolsets: [{ name: 'a', tools: ['!x:*'] }] },
      'toolsets[0].tools[0]: negated patterns are not supported',
    ],
    [
      { toolsets: [{ name: 'a', annotations: { readOnly: true } }] },
      'toolsets[0].annotations.readOnly: unknown key',
    ],
    [{ toolsets: [{ name: 'a', namespace: ['x'] }] }, 'toolsets[0].namespace: unknown key'],
  ])('refuses %j naming the key', (raw, message) => {
    expect(configError(raw)).toContain(message);
  });
});

describe('auth section', () => {
  it('parses keys, a JWT issuer and OAuth metadata', () => {
    const { config } = parseConfigValue({
      toolsets: [{ name: 'time' }],
      auth: {
        apiKeys: [{ name: 'ci', key: KEY, toolsets: ['time'] }],
        jwt: { jwksUrl: 'https://idp.example/jwks', issuer: 'https://idp.example', audience: ['a', 'b'] },
        oauth: { authorizationServers: ['https://idp.example'], scopesSupported: ['tools'] },
      },
    });
    expect(config.auth.apiKeys).toEqual([{ name: 'ci', key: KEY, toolsets: ['time'] }]);
    expect(config.auth.jwt).toMatchObject({ audience: ['a', 'b'], clockToleranceSec: 30 });
    expect(config.auth.oauth?.authorizationServers).toEqual(['https://idp.example']);
  });

  it('takes keys from ${env:…}', () => {
    const { config } = parseConfigValue(
      { auth: { apiKeys: [{ name: 'ci', key: '${env:CI_KEY}' }] } },
      { env: { CI_KEY: KEY } },
    );
    expect(config.auth.apiKeys[0]?.key).toBe(KEY);
  });

  it.each([
    [
      { auth: { apiKeys: [{ name: 'ci', key: 'short' }] } },
      'auth.apiKeys[0].key: must be at least 16 characters',
    ],
    [
      {
        auth: {
          apiKeys: [
            { name: 'ci', key: KEY },
            { name: 'ci', key: `${KEY}x` },
          ],
        },
      },
      'auth.apiKeys[1].name: duplicate key name "ci"',
    ],
    [
      {
        auth: {
          apiKeys: [
            { name: 'a', key: KEY },
            { name: 'b', key: KEY },
          ],
        },
      },
      'auth.apiKeys[1].key: the same key as apiKeys[0]',
    ],
    [
      { auth: { apiKeys: [{ name: 'a', key: KEY, toolsets: [] }] } },
      'auth.apiKeys[0].toolsets: must list at least one',
    ],
    [{ auth: { apiKeys: [{ name: 'a', key: KEY, scope: 'x' }] } }, 'auth.apiKeys[0].scope: unknown key'],
    [
      { auth: { jwt: { issuer: 'i', audience: 'a' } } },
      'auth.jwt: set exactly one of "jwksUrl" and "publicKey"',
    ],
    [
      { auth: { jwt: { jwksUrl: 'ftp://x', issuer: 'i', audience: 'a' } } },
      'auth.jwt.jwksUrl: must be an http',
    ],
    [
      { auth: { jwt: { publicKey: 'x', issuer: 'i' } } },
      'auth.jwt.audience: must be a non-empty string or a list of them',
    ],
    [
      { auth: { jwt: { publicKey: 'x', issuer: 'i', audience: 'a', algorithms: ['HS256'] } } },
      'auth.jwt.algorithms[0]',
    ],
    [{ auth: { oauth: { authorizationServers: ['https://idp.example'] } } }, 'auth.oauth: needs "jwt"'],
    [
      { auth: { oauth: { authorizationServers: [] } } },
      'auth.oauth.authorizationServers: must list at least one',
    ],
  ])('refuses %j naming the key', (raw, message) => {
    expect(configError(raw)).toContain(message);
  });
});

describe('assertToolsetReferences', () => {
  it('refuses an API key confined to a toolset that does not exist, naming the path', () => {
    const { config } = parseConfigValue({
      toolsets: [{ name: 'time' }],
      auth: { apiKeys: [{ name: 'ci', key: KEY, toolsets: ['time', 'tme'] }] },
    });
    expect(() => assertToolsetReferences(config, 'gw.yaml')).toThrow(
      'Invalid config (gw.yaml): auth.apiKeys[0].toolsets[1]: no toolset "tme" (defined: time)',
    );
    const ok = parseConfigValue({
      toolsets: [{ name: 'time' }],
      auth: { apiKeys: [{ name: 'ci', key: KEY, toolsets: ['time'] }] },
    });
    expect(() => assertToolsetReferences(ok.config, 'gw.yaml')).not.toThrow();
  });
});
