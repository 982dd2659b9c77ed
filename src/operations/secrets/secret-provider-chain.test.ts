import { describe, expect, it } from 'vitest';
import { InMemorySecretProvider } from './in-memory-secret-provider.js';
import { runSecretProviderContract } from './secret-provider.contract.js';
import type { SecretProvider } from './secret-provider.js';
import { SecretProviderChain } from './secret-provider-chain.js';

runSecretProviderContract(
  'SecretProviderChain',
  (secrets) =>
    new SecretProviderChain([new InMemorySecretProvider({}, 'empty'), new InMemorySecretProvider(secrets)]),
);

describe('SecretProviderChain', () => {
  it('asks providers in order; the first that has the secret wins', async () => {
    const chain = new SecretProviderChain([
      new InMemorySecretProvider({ A: 'first' }, 'one'),
      new InMemorySecretProvider({ A: 'second', B: 'only-second' }, 'two'),
    ]);
    expect(chain.name).toBe('one, two');
    expect(await chain.get('A')).toBe('first');
    expect(await chain.get('B')).toBe('only-second');
    expect(await chain.get('C')).toBeUndefined();
  });

  it('an empty string is a value, not a miss', async () => {
    const chain = new SecretProviderChain([
      new InMemorySecretProvider({ A: '' }),
      new InMemorySecretProvider({ A: 'later' }),
    ]);
    expect(await chain.get('A')).toBe('');
  });

  it('fails instead of falling through when a provider cannot answer', async () => {
    const down: SecretProvider = {
      name: 'vault',
      get: () => Promise.reject(new Error('vault unreachable')),
    };
    const chain = new SecretProviderChain([down, new InMemorySecretProvider({ A: 'stale' })]);
    await expect(chain.get('A')).rejects.toThrow('vault unreachable');
  });

  it('with no providers has nothing', async () => {
    const chain = new SecretProviderChain([]);
    expect(chain.name).toBe('(no providers)');
    expect(await chain.get('A')).toBeUndefined();
  });
});
