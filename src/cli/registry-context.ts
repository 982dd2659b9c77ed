import { existsSync } from 'node:fs';
import path from 'node:path';
import { openStateStore } from '../app/state-directory.js';
import { CONFIG_FILE_NAMES } from '../config/load-config.js';
import { registriesSection } from '../config/registries-schema.js';
import { stateSection } from '../config/search-schema.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import type { StateStore } from '../foundation/ports/state-store.js';
import { terminalSafe } from '../foundation/util/terminal-safe.js';
import { createLogger } from '../operations/create-logger.js';
import { OFFICIAL_REGISTRY, RegistryClient } from '../operations/registry/registry-client.js';
import { atCommandEnd, type GlobalOptions, logFormatOf, stateDirOf } from './cli-context.js';

/*
 * What `registry`, `add` and `remove` share: the config file they edit and the registry client the
 * config describes. They read the file as written rather than through `loadConfig`: a config that
 * references a secret not stored yet (the usual state right after an `add`) must not stop the next
 * `add` or a `remove`.
 */

/** The config file a command edits: `--config`, `$APERTURE_CONFIG`, the one found here, else ./aperture.yaml (created). */
export function configFileOf(options: GlobalOptions): string {
  const given = options.config ?? (process.env.APERTURE_CONFIG || undefined);
  if (given !== undefined) return path.resolve(process.cwd(), given);
  const found = CONFIG_FILE_NAMES.map((name) => path.resolve(process.cwd(), name)).find((file) =>
    existsSync(file),
  );
  return found ?? path.resolve(process.cwd(), CONFIG_FILE_NAMES[0]);
}

export { readRawConfig } from '../config/config-file-edit.js';

/** A registry client for the config's `registries`, caching in its state store. */
export function registryClientOf(
  file: string,
  raw: Record<string, unknown>,
  options: GlobalOptions,
): { client: RegistryClient; state: StateStore } {
  const registries = registriesSection.safeParse(raw.registries ?? undefined);
  if (!registries.success) {
    const issue = registries.error.issues[0];
    throw new GatewayError(
      'config_invalid',
      `${file}: registries${issue ? `.${issue.path.join('.')}: ${issue.message}` : ' is invalid'}`,
    );
  }
  const stateConfig = stateSection.safeParse(raw.state ?? undefined);
  const log = createLogger({ level: 'warn', format: logFormatOf(options) });
  const dir = stateDirOf();
  const state = openStateStore(
    stateConfig.success ? stateConfig.data : stateSection.parse(undefined),
    path.dirname(file),
    { ...(dir ? { dir } : {}), log },
  );
  atCommandEnd(async () => state.close());
  const client = new RegistryClient({
    registries: (registries.data ?? [OFFICIAL_REGISTRY]).map((registry) => ({
      url: registry.url,
      name: registry.name ?? new URL(registry.url).host,
    })),
    state,
  });
  return { client, state };
}

export { assertLoadable } from '../config/assert-loadable.js';

/** Lines for the terminal: each made safe (no control characters from a registry), newline-ended. */
export function safeLines(text: string): string {
  return `${text
    .split('\n')
    .map((line) => terminalSafe(line))
    .join('\n')}\n`;
}
