import type { SecretProvider } from './secret-provider.js';

/** Options of {@link EnvSecretProvider}. */
export interface EnvSecretProviderOptions {
  /** Variables to read; default `process.env` (read at each lookup, not copied). */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Prepended to the secret's name: with `APERTURE_SECRET_`, `DB_PASS` reads `APERTURE_SECRET_DB_PASS`. */
  prefix?: string | undefined;
}

/** Secrets from environment variables: `${secret:NAME}` reads the variable `<prefix>NAME`. */
export class EnvSecretProvider implements SecretProvider {
  readonly name: string;
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #prefix: string;

  constructor(options: EnvSecretProviderOptions = {}) {
    this.#env = options.env ?? process.env;
    this.#prefix = options.prefix ?? '';
    this.name = this.#prefix === '' ? 'env' : `env:${this.#prefix}*`;
  }

  async get(name: string): Promise<string | undefined> {
    const key = `${this.#prefix}${name}`;
    // hasOwn: a secret named "toString" must not resolve to Object.prototype.toString.
    const value = Object.hasOwn(this.#env, key) ? this.#env[key] : undefined;
    return typeof value === 'string' ? value : undefined;
  }
}
