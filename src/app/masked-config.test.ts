import { describe, expect, it } from 'vitest';
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
});
