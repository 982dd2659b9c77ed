// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the config holds ${env:…} references on purpose.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faultyServer } from '../support/fixture-servers.js';
import { type RunningGateway, startHttpGateway } from './gateway-process.js';

const API_KEY = 'ops-key-5d2e8a1b9c';
const FROM_ENV = 'cfg-env-value-4a7b';

/**
 * `/api/admin/config` (what the console's Config page shows): a server's plain env values are
 * readable; credentials — by name, by shape, or given by `${env:…}` — stay `[REDACTED]`.
 */
describe('server env values in /api/admin/config', () => {
  let dir: string;
  let gateway: RunningGateway;
  let saved: string | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-env-display-'));
    const config = path.join(dir, 'aperture.json');
    await writeFile(
      config,
      JSON.stringify({
        auth: { apiKeys: [{ name: 'ops', key: API_KEY, admin: true }] },
        tools: { builtin: false },
        servers: {
          plain: faultyServer({
            LOG_LEVEL: 'debug',
            GITHUB_TOKEN: 'ghp_literalInTheConfigFile0123',
            PASTED: 'sk-ant-api03-abcdefghijklmnop',
            FROM_ENV: '${env:APERTURE_TEST_FROM_ENV}',
          }),
        },
      }),
    );
    saved = process.env.APERTURE_TEST_FROM_ENV;
    process.env.APERTURE_TEST_FROM_ENV = FROM_ENV;
    gateway = await startHttpGateway(['--config', config], dir);
  });

  afterAll(async () => {
    await gateway?.[Symbol.asyncDispose]();
    if (saved === undefined) delete process.env.APERTURE_TEST_FROM_ENV;
    else process.env.APERTURE_TEST_FROM_ENV = saved;
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('shows LOG_LEVEL, masks the literal token, the pasted key and the ${env:…} value', async () => {
    const response = await fetch(`${gateway.url}/api/admin/config`, { headers: { 'x-api-key': API_KEY } });
    expect(response.status).toBe(200);
    const text = await response.text();
    const body = JSON.parse(text) as { config: { servers: Record<string, { env: Record<string, string> }> } };
    expect(body.config.servers.plain?.env).toEqual({
      LOG_LEVEL: 'debug',
      GITHUB_TOKEN: '[REDACTED]',
      PASTED: '[REDACTED]',
      FROM_ENV: '[REDACTED]',
    });
    expect(text).not.toContain('ghp_literal');
    expect(text).not.toContain('sk-ant');
    expect(text).not.toContain(FROM_ENV);
  });
});
