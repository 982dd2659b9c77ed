import { describe, expect, it } from 'vitest';
import { InMemorySecretProvider } from './in-memory-secret-provider.js';
import { runSecretProviderContract } from './secret-provider.contract.js';

runSecretProviderContract('InMemorySecretProvider', (secrets) => new InMemorySecretProvider(secrets));
runSecretProviderContract(
  'InMemorySecretProvider from entries',
  (secrets) => new InMemorySecretProvider(Object.entries(secrets)),
);

describe('InMemorySecretProvider', () => {
  it('sees secrets set and deleted after construction', async () => {
    const provider = new InMemorySecretProvider({}, 'test');
    expect(provider.name).toBe('test');
    provider.set('A', 'one');
    expect(await provider.get('A')).toBe('one');
    provider.delete('A');
    expect(await provider.get('A')).toBeUndefined();
  });
});
