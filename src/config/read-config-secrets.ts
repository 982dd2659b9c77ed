import { GatewayError } from '../foundation/model/gateway-error.js';
import { createSecretProvider } from '../operations/secrets/create-secret-provider.js';
import { isValidSecretName } from '../operations/secrets/secret-provider.js';
import { invalidConfigLabel as label } from './config-issues.js';
import {
  type ConfigReference,
  findReferences,
  formatConfigPath,
  undefinedReferenceMessage,
} from './interpolate.js';
import { parseConfigValue } from './parse-config.js';

/**
 * Reads the `${secret:NAME}` references of a document from its `secrets.providers` (default: the
 * environment), in list order, first that has it wins.
 *
 * @throws GatewayError `config_invalid` naming every secret no provider has, each with the key
 *   path of its first use, and the providers asked (`details.providers`).
 */
export async function readConfigSecrets(
  raw: unknown,
  context: { env: NodeJS.ProcessEnv; source: string | undefined; baseDir: string },
): Promise<Map<string, string>> {
  const values = new Map<string, string>();
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return values;
  // References in `secrets` itself and invalid names are refused by parseConfigValue, with the path.
  const references = findReferences(raw, 'secret').filter(
    (reference) => reference.path[0] !== 'secrets' && isValidSecretName(reference.name),
  );
  if (references.length === 0) return values;
  // The section is validated by the full schema, alone: same rules, same messages, no duplicate.
  const section = (raw as Record<string, unknown>).secrets;
  const { config } = parseConfigValue({ secrets: section }, { env: context.env, source: context.source });
  const provider = createSecretProvider(config.secrets.providers, {
    env: context.env,
    baseDir: context.baseDir,
  });
  // One lookup per name; messages point at its first use.
  const firstUse = new Map<string, ConfigReference>();
  for (const reference of references) {
    if (!firstUse.has(reference.name)) firstUse.set(reference.name, reference);
  }
  await Promise.all(
    [...firstUse.values()].map(async ({ name, path }) => {
      let value: string | undefined;
      try {
        value = await provider.get(name);
      } catch (error) {
        const where = formatConfigPath(path);
        const reason = error instanceof Error ? error.message : String(error);
        throw new GatewayError(
          'config_invalid',
          `${label(context.source)}: ${where}: secret "${name}" could not be read (${provider.name}): ${reason}`,
          { details: { path: where, secret: name, source: context.source }, cause: error },
        );
      }
      if (value !== undefined) values.set(name, value);
    }),
  );
  // A name is missing only where it is used without a `:-default`; such a use is what the message points at.
  const required = new Map<string, ConfigReference>();
  for (const reference of references) {
    if (reference.fallback === undefined && !required.has(reference.name)) {
      required.set(reference.name, reference);
    }
  }
  const missing = [...required.values()].filter(({ name }) => !values.has(name));
  const [first] = missing;
  if (first !== undefined) {
    const lines = missing.map(({ name, path }) => undefinedReferenceMessage('secret', name, path));
    throw new GatewayError('config_invalid', `${label(context.source)}: ${lines.join('; ')}`, {
      details: {
        path: formatConfigPath(first.path),
        secret: first.name,
        source: context.source,
        providers: provider.providers.map((one) => one.name),
        issues: missing.map(({ name, path }) => ({
          path: formatConfigPath(path),
          message: `secret "${name}" is not defined`,
        })),
      },
    });
  }
  return values;
}
