// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the test writes ${env:…} references on purpose.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load-config.js';
import { createSecretMasker } from '../operations/secrets/secret-masker.js';
import { maskedConfig } from './masked-config.js';

describe('maskedConfig', () => {
  it('hides API keys, env and headers of servers, credential-like keys and interpolated secrets', () => {
    const config = {
      auth: { apiKeys: [{ name: 'ops', key: 'k-123', admin: true }] },
      servers: {
        a: {
          command: 'x',
          env: { HOME: '/h' },
          headers: { Authorization: 'Bearer t' },
          args: ['--db=s3cr3t'],
        },
      },
      observability: { otlp: { token: 'tok' } },
      server: { port: 8080 },
    };
    const masked = maskedConfig(config, (text) => text.replaceAll('s3cr3t', '***')) as typeof config;
    expect(masked.auth.apiKeys[0]).toEqual({ name: 'ops', key: '[REDACTED]', admin: true });
    // A literal, plainly non-secret env value is shown (it used to be masked with every env value).
    expect(masked.servers.a.env).toEqual({ HOME: '/h' });
    expect(masked.servers.a.headers).toEqual({ Authorization: '[REDACTED]' });
    expect(masked.servers.a.args).toEqual(['--db=***']);
    expect(masked.observability.otlp.token).toBe('[REDACTED]');
    expect(masked.server.port).toBe(8080);
    expect(JSON.stringify(masked)).not.toMatch(/k-123|Bearer t|tok"|s3cr3t/);
  });

  it('hides state.tokenKey given by ${env:…} in the config and in any text the masker sees; other env values stay readable', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'aperture-masked-'));
    try {
      await writeFile(
        join(dir, 'aperture.yaml'),
        'server: { name: "${env:GW_NAME}" }\nstate: { tokenKey: "${env:GW_TOKEN_KEY}" }\n',
      );
      const env = { GW_NAME: 'team-gateway', GW_TOKEN_KEY: 'token-key-0123456789abcdef0123456789' };
      const loaded = await loadConfig({ cwd: dir, env });
      const mask = createSecretMasker(loaded.secretValues);
      const masked = maskedConfig(loaded.config, mask) as {
        server: { name: string };
        state: { tokenKey: string };
      };
      expect(masked.state.tokenKey).toBe('[REDACTED]');
      expect(masked.server.name).toBe('team-gateway');
      // The same value anywhere else (an error, an argument in the activity feed) is masked too.
      expect(mask(`failed with ${env.GW_TOKEN_KEY}`)).toBe('failed with [REDACTED]');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("shows a server's plain env and header values; masks credential names, credential shapes and ${env:…}/${secret:…} values", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'aperture-masked-'));
    try {
      await writeFile(
        join(dir, 'aperture.yaml'),
        [
          'mcpServers:',
          '  gh:',
          '    command: node',
          '    env:',
          '      LOG_LEVEL: debug',
          '      DATA_DIR: /srv/data',
          '      GITHUB_TOKEN: ghp_literalInTheFile0123456789',
          '      DB_PASS: hunter22',
          '      OPENAI: sk-proj-abcdef0123456789',
          '      OPAQUE: 9f8e7d6c5b4a39281706f5e4d3c2b1a0',
          '      DATABASE_URL: postgres://app:pw1234@db.internal/app',
          '      FROM_ENV: "${env:GW_PLAIN}"',
          '      FROM_SECRET: "${secret:GW_SECRET}"',
          '  remote:',
          '    url: https://tools.example.com/mcp',
          '    headers:',
          '      X-Tenant: acme',
          '      X-Request-Source: "${env:GW_PLAIN}"',
          '      X-Custom: Bearer abcdef',
          '',
        ].join('\n'),
      );
      const env = { GW_PLAIN: 'just-a-word', GW_SECRET: 'the-secret-value' };
      const loaded = await loadConfig({ cwd: dir, env });
      const masked = maskedConfig(loaded.config, createSecretMasker(loaded.secretValues)) as {
        servers: Record<string, { env?: Record<string, string>; headers?: Record<string, string> }>;
      };
      expect(masked.servers.gh?.env).toEqual({
        LOG_LEVEL: 'debug',
        DATA_DIR: '/srv/data',
        GITHUB_TOKEN: '[REDACTED]',
        DB_PASS: '[REDACTED]',
        OPENAI: '[REDACTED]',
        OPAQUE: '[REDACTED]',
        DATABASE_URL: '[REDACTED]',
        FROM_ENV: '[REDACTED]',
        FROM_SECRET: '[REDACTED]',
      });
      expect(masked.servers.remote?.headers).toEqual({
        'X-Tenant': 'acme',
        'X-Request-Source': '[REDACTED]',
        'X-Custom': '[REDACTED]',
      });
      expect(JSON.stringify(masked)).not.toMatch(/ghp_|hunter22|sk-proj|pw1234|just-a-word|the-secret-value/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
