import { resolve } from 'node:path';
import { DirectorySecretProvider } from './directory-secret-provider.js';
import { EnvSecretProvider } from './env-secret-provider.js';
import type { SecretProvider } from './secret-provider.js';
import { SecretProviderChain } from './secret-provider-chain.js';

/** One entry of `secrets.providers` in the config. */
export type SecretProviderSpec =
  | { type: 'env'; prefix?: string | undefined }
  | { type: 'directory'; path: string };

/** Options of {@link createSecretProvider}. */
export interface CreateSecretProviderOptions {
  /** Variables env providers read; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Directory relative `directory` paths start from (the config file's); default the process cwd. */
  baseDir?: string;
}

/** The providers of a `secrets.providers` list, chained in list order (first that has it wins). */
export function createSecretProvider(
  specs: readonly SecretProviderSpec[],
  options: CreateSecretProviderOptions = {},
): SecretProviderChain {
  const providers = specs.map((spec): SecretProvider => {
    if (spec.type === 'env') return new EnvSecretProvider({ env: options.env, prefix: spec.prefix });
    return new DirectorySecretProvider({ path: resolve(options.baseDir ?? process.cwd(), spec.path) });
  });
  return new SecretProviderChain(providers);
}
