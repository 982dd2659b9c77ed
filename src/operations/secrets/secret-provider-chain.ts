import type { SecretProvider } from './secret-provider.js';

/**
 * Several providers asked in order; the first that has a secret wins. A provider that fails
 * (rejects) fails the lookup instead of falling through: a vault that is down must not let a stale
 * value from a later provider through silently.
 */
export class SecretProviderChain implements SecretProvider {
  readonly name: string;
  readonly providers: readonly SecretProvider[];

  constructor(providers: readonly SecretProvider[]) {
    this.providers = [...providers];
    this.name = this.providers.map((provider) => provider.name).join(', ') || '(no providers)';
  }

  async get(name: string): Promise<string | undefined> {
    for (const provider of this.providers) {
      const value = await provider.get(name);
      if (value !== undefined) return value;
    }
    return undefined;
  }
}
