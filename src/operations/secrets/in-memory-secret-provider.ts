import type { SecretProvider } from './secret-provider.js';

/** The reference {@link SecretProvider}: secrets held in a map (tests, embedding applications). */
export class InMemorySecretProvider implements SecretProvider {
  readonly name: string;
  readonly #secrets: Map<string, string>;

  constructor(secrets: Readonly<Record<string, string>> | Iterable<[string, string]> = {}, name = 'memory') {
    this.name = name;
    // A Map, not the object itself: a secret named "toString" must not find Object.prototype's.
    this.#secrets = new Map(Symbol.iterator in secrets ? secrets : Object.entries(secrets));
  }

  /** Adds or replaces a secret. */
  set(name: string, value: string): void {
    this.#secrets.set(name, value);
  }

  /** Removes a secret; later reads answer `undefined`. */
  delete(name: string): void {
    this.#secrets.delete(name);
  }

  async get(name: string): Promise<string | undefined> {
    return this.#secrets.get(name);
  }
}
