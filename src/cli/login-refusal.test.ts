import { describe, expect, it } from 'vitest';
import { parseConfigValue } from '../config/parse-config.js';
import { loginRefusal, protectedResourceMetadataUrls } from './login-refusal.js';

describe('loginRefusal', () => {
  const config = parseConfigValue(
    {
      servers: {
        local: { command: 'node', args: ['server.js'] },
        plain: { url: 'http://127.0.0.1:9/mcp' },
      },
    },
    { source: 'test' },
  ).config;

  it('says a stdio server does not use OAuth, without probing it', async () => {
    const probed: string[] = [];
    const error = await loginRefusal('local', config, [], async (url) => void probed.push(url));
    expect(error.message).toContain('server "local" does not use OAuth: it is a stdio server');
    expect(probed).toEqual([]);
  });

  it('probes a remote server without an oauth block, and says what it found', async () => {
    const none = await loginRefusal('plain', config, [], async () => undefined);
    expect(none.message).toContain('server "plain" does not use OAuth');
    const announced = await loginRefusal(
      'plain',
      config,
      [],
      async () => 'http://x/.well-known/oauth-protected-resource',
    );
    expect(announced.message).toContain('but it announces OAuth');
    expect(announced.message).toContain('oauth: {}');
  });

  it('keeps the message for a name that is no server', async () => {
    expect((await loginRefusal('nosuch', config, ['docs', 'machine'])).message).toBe(
      '"nosuch" is not a server with oauth (docs, machine)',
    );
  });
});

describe('protectedResourceMetadataUrls', () => {
  it('puts the path-specific URL first (RFC 9728)', () => {
    expect(protectedResourceMetadataUrls('https://h.example/api/mcp/')).toEqual([
      'https://h.example/.well-known/oauth-protected-resource/api/mcp',
      'https://h.example/.well-known/oauth-protected-resource',
    ]);
  });
});
