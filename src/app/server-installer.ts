import { assertLoadable } from '../config/assert-loadable.js';
import { commandExists } from '../config/command-on-path.js';
import { readRawConfig, withServerEntry, writeConfigText } from '../config/config-file-edit.js';
import { registriesSection } from '../config/registries-schema.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import type { StateStore } from '../foundation/ports/state-store.js';
import { planInstall } from '../operations/registry/install-plan.js';
import { npmIntegrity } from '../operations/registry/npm-integrity.js';
import { OFFICIAL_REGISTRY, RegistryClient } from '../operations/registry/registry-client.js';
import { neededVariables, type ServerJson } from '../operations/registry/server-json.js';
import type { InstallPlan } from '../surfaces/console/admin-contract.js';
import type { ServerInstaller } from '../surfaces/console/install-routes.js';

/** What {@link serverInstaller} works with. */
export interface ServerInstallerDeps {
  /** The config file the gateway runs on (undefined: on the defaults, nothing to write into). */
  configFile: () => string | undefined;
  /** `sandbox.default` of the running config: the profile a stdio server gets. */
  sandboxDefault: () => string;
  /** Where registry answers are cached. */
  state: StateStore;
  /** Applies the written file at once (the file watcher would too, a moment later). */
  reload: () => Promise<unknown>;
}

/** How a server runs, in a word per way: `npm`, `pypi`, `remote(streamable-http)`, … */
function ways(server: ServerJson): string[] {
  return [
    ...server.packages.map(
      (pkg) => `${pkg.registryType}${pkg.transport === 'stdio' ? '' : `(${pkg.transport})`}`,
    ),
    ...server.remotes.map((remote) => `remote(${remote.type})`),
  ];
}

function needsOf(server: ServerJson): InstallPlan['needs'] {
  return neededVariables(server).map((v) => ({
    name: v.name,
    secret: v.isSecret,
    required: v.isRequired,
    ...(v.description === undefined ? {} : { description: v.description }),
  }));
}

/**
 * The console's install by name, as `aperture add` does it: the registries of the config file as
 * written, `planInstall` for the entry (secrets as `${secret:NAME}`), the npm integrity recorded,
 * `assertLoadable` before anything is written, the file's comments kept, then a reload. A value
 * given for a secret variable is refused: secrets are stored by the user, never sent through the
 * API. MCP Bundles are left to `aperture add` (they are downloaded and unpacked on this machine).
 */
export function serverInstaller(deps: ServerInstallerDeps): ServerInstaller {
  const configFile = (): string => {
    const file = deps.configFile();
    if (file === undefined) {
      throw new GatewayError(
        'invalid_request',
        'The gateway runs without a config file: start it with --config FILE to install servers from the console',
      );
    }
    return file;
  };
  const read = readRawConfig;
  const clientOf = (file: string, raw: Record<string, unknown>): RegistryClient => {
    const registries = registriesSection.safeParse(raw.registries ?? undefined);
    if (!registries.success) throw new GatewayError('config_invalid', `${file}: registries is invalid`);
    return new RegistryClient({
      registries: (registries.data ?? [OFFICIAL_REGISTRY]).map((registry) => ({
        url: registry.url,
        name: registry.name ?? new URL(registry.url).host,
      })),
      state: deps.state,
    });
  };
  return {
    async search(query, limit) {
      const file = configFile();
      const { raw } = await read(file);
      const hits = await clientOf(file, raw).search(query, limit);
      return {
        servers: hits.map(({ registry, server }) => ({
          registry,
          name: server.name,
          version: server.version,
          description: server.description,
          runs: ways(server),
          needs: needsOf(server),
        })),
      };
    },
    async install(request, write) {
      const file = configFile();
      const { text, raw } = await read(file);
      const hit = await clientOf(file, raw).server(request.name, request.version);
      const needs = needsOf(hit.server);
      const secretGiven = needs.filter((need) => need.secret && request.values[need.name] !== undefined);
      if (secretGiven.length > 0) {
        throw new GatewayError(
          'invalid_request',
          `${secretGiven.map((need) => need.name).join(', ')} ${secretGiven.length === 1 ? 'is a secret' : 'are secrets'}: not accepted as a value here; the entry names \${secret:NAME} and you store the value (with the default provider, an environment variable of that name where the gateway runs)`,
        );
      }
      // A preview shows the entry before the user typed every value: `<NAME>` stands in for each
      // value still missing. An install takes only what was given (a missing required value fails).
      const values = write
        ? request.values
        : {
            ...Object.fromEntries(
              needs.filter((need) => !need.secret).map((need) => [need.name, `<${need.name}>`]),
            ),
            ...request.values,
          };
      const plan = planInstall(hit.server, {
        ...(request.as === undefined ? {} : { key: request.as }),
        values,
        registry: hit.registry,
        trust: request.trust,
        hasCommand: (program) => commandExists(program, process.env, process.cwd()),
      });
      if (plan.bundle) {
        throw new GatewayError(
          'invalid_request',
          `${hit.server.name} is an MCP Bundle: install it with \`aperture add ${hit.server.name}\` on the gateway's machine`,
        );
      }
      if (write && plan.npmVersionUrl !== undefined) {
        const integrity = await npmIntegrity(plan.npmVersionUrl);
        if (integrity !== undefined) plan.origin += `, integrity ${integrity}`;
      }
      const next = withServerEntry(text, file, plan.key, plan.entry, `added by the console: ${plan.origin}`);
      assertLoadable(next, file);
      if (write) {
        await writeConfigText(file, next);
        await deps.reload();
      }
      const remote = typeof plan.entry.url === 'string';
      return {
        key: plan.key,
        via: plan.via,
        transport: remote ? String(plan.entry.transport ?? hit.server.remotes[0]?.type ?? 'http') : 'stdio',
        entry: plan.entry,
        secrets: plan.secrets,
        needs,
        sandbox: remote ? 'none (remote)' : deps.sandboxDefault(),
        origin: plan.origin,
        written: write,
      };
    },
  };
}
