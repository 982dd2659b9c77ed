import { describe, expect, it } from 'vitest';
import { EnvSecretProvider } from './env-secret-provider.js';
import { runSecretProviderContract } from './secret-provider.contract.js';

runSecretProviderContract('EnvSecretProvider', (secrets) => new EnvSecretProvider({ env: { ...secrets } }));
runSecretProviderContract('EnvSecretProvider with a prefix', (secrets) => {
  const env: Record<string, string> = { OTHER: 'not a secret' };
  for (const [name, value] of Object.entries(secrets)) env[`APERTURE_SECRET_${name}`] = value;
  return new EnvSecretProvider({ env, prefix: 'APERTURE_SECRET_' });
});

describe('EnvSecretProvider', () => {
  it('reads only prefixed variables when a prefix is set', async () => {
    const env = { DB_PASS: 'plain', APERTURE_SECRET_DB_PASS: 'prefixed' };
    const provider = new EnvSecretProvider({ env, prefix: 'APERTURE_SECRET_' });
    expect(await provider.get('DB_PASS')).toBe('prefixed');
    expect(await provider.get('APERTURE_SECRET_DB_PASS')).toBeUndefined();
    expect(provider.name).toBe('env:APERTURE_SECRET_*');
    expect(new EnvSecretProvider({ env }).name).toBe('env');
  });

  it('reads the environment at each lookup, process.env by default', async () => {
    const key = `APERTURE_TEST_SECRET_${process.pid}`;
    const provider = new EnvSecretProvider();
    expect(await provider.get(key)).toBeUndefined();
    process.env[key] = 'late-value';
    try {
      expect(await provider.get(key)).toBe('late-value');
    } finally {
      delete process.env[key];
    }
  });
});
