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
    expect(masked.servers.a.env).toEqual({ HOME: '[REDACTED]' });
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
});
