import { GatewayError } from '../../foundation/model/gateway-error.js';
import { normaliseNamespace } from '../../foundation/schema/config-values.js';
import type { ServerJson, ServerPackage, ServerRemote, ServerVariable } from './server-json.js';

/** A config entry for `servers.<key>`, as it is written into the config file. */
export type ServerEntryDraft = Record<string, unknown>;

/** What `aperture add` will write, and what the user still has to provide. */
export interface InstallPlan {
  key: string;
  entry: ServerEntryDraft;
  /** How the server is run: `npm`, `pypi`, `oci`, `remote`, `mcpb`. */
  via: string;
  /** Secret names the entry references (`${secret:NAME}`): the user stores their values. */
  secrets: string[];
  /** A one-line description for the comment written above the entry. */
  origin: string;
  /** For `mcpb`: the bundle to download and check. */
  bundle?: { url: string; sha256: string };
  /** For `npm`: where the pinned version's integrity can be read (`<registryBaseUrl>/<pkg>/<version>`). */
  npmVersionUrl?: string;
}

/** Options of {@link planInstall}. */
export interface PlanOptions {
  /** `--as KEY`; default: the last part of the server's name. */
  key?: string;
  /** `--env NAME=VALUE`: values of non-secret variables (and URL template variables). */
  values: Readonly<Record<string, string>>;
  /** The registry the document came from, for the comment. */
  registry: string;
  /** Whether a command is on this machine's PATH (`uvx`, `docker`). */
  hasCommand: (command: string) => boolean;
  /** `servers.<key>.trust` to write; absent: not written. */
  trust?: string;
}

/** Runtimes of package types Aperture starts through another program. */
const RUNTIMES: Record<string, { command: string; runtime: string }> = {
  pypi: { command: 'uvx', runtime: 'Python packages run with uv (`uvx`)' },
  oci: { command: 'docker', runtime: 'OCI images run with Docker (`docker`)' },
};

/**
 * Turns a registry `server.json` into one server entry. Preference: an npm package speaking stdio
 * (`npx -y pkg@version`: runs from the gateway's package cache), a remote endpoint (`url`), an
 * MCPB bundle, then PyPI (`uvx`) and OCI (`docker run`) when their program is on PATH. A server
 * with nothing usable fails with `invalid_request` saying what it would need. Variables marked
 * secret become `${secret:NAME}` references whatever was passed; a required variable with no
 * value and no default fails, naming it (no partial entry is ever planned).
 */
export function planInstall(server: ServerJson, options: PlanOptions): InstallPlan {
  const key = options.key ?? defaultKey(server.name);
  if (normaliseNamespace(key) !== key) {
    throw new GatewayError(
      'invalid_request',
      `"${key}" cannot be a server key (letters, digits, "_", "." or "-"); choose one with --as KEY`,
    );
  }
  const stdio = (type: string) =>
    server.packages.find((pkg) => pkg.registryType === type && pkg.transport === 'stdio');
  const npm = stdio('npm');
  const remote =
    server.remotes.find((r) => r.type === 'streamable-http') ?? server.remotes.find((r) => r.type === 'sse');
  const mcpb = server.packages.find((pkg) => pkg.registryType === 'mcpb');
  const context = new Context(options, key);
  let plan: Omit<InstallPlan, 'key' | 'secrets' | 'origin'>;
  if (npm) {
    const version = npm.version ?? server.version;
    plan = {
      via: 'npm',
      entry: packageEntry('npx', ['-y', pinned(npm, server, '@')], npm, context),
      // Only a package registry the document names is asked (published documents name npmjs.org).
      ...(version && npm.registryBaseUrl
        ? { npmVersionUrl: `${npm.registryBaseUrl.replace(/\/+$/, '')}/${npm.identifier}/${version}` }
        : {}),
    };
  } else if (remote) plan = { via: 'remote', entry: remoteEntry(remote, context) };
  else if (mcpb) plan = mcpbPlan(mcpb, server);
  else plan = runtimePlan(server, options, context);
  if (options.trust !== undefined) plan.entry.trust = options.trust;
  context.check(server.name);
  return {
    key,
    ...plan,
    secrets: [...context.secrets],
    origin: `${server.name}@${server.version || 'unversioned'} from registry ${options.registry} (${plan.via})`,
  };
}

/** `io.github.owner/weather-server` → `weather-server`. */
export function defaultKey(name: string): string {
  const last = name.split('/').at(-1) ?? name;
  return normaliseNamespace(last) ?? normaliseNamespace(name.replace(/\//g, '-')) ?? 'server';
}

/** Values, secrets and what is missing, gathered while the entry is built. */
class Context {
  readonly secrets = new Set<string>();
  private readonly missing: string[] = [];
  constructor(
    readonly options: PlanOptions,
    readonly key: string,
  ) {}

  /** The value to write for a variable: a secret reference, the user's value, the publisher's or the default. */
  valueOf(variable: ServerVariable, template?: string): string | undefined {
    if (template !== undefined && /\{[A-Za-z0-9_.-]+\}/.test(template)) {
      return this.fill(template, variable.variables ?? [], variable.isSecret);
    }
    if (variable.isSecret) {
      const name = secretName(variable.name);
      this.secrets.add(name);
      return `\${secret:${name}}`;
    }
    const given = this.options.values[variable.name];
    if (given !== undefined) return given;
    if (template !== undefined) return template;
    if (variable.default !== undefined) return variable.default;
    if (variable.isRequired) this.missing.push(variable.name);
    return undefined;
  }

  /** `{name}` placeholders replaced by the named variables' values. */
  fill(template: string, vars: readonly ServerVariable[], secret = false): string {
    return template.replace(/\{([A-Za-z0-9_.-]+)\}/g, (whole, name: string) => {
      const declared = vars.find((v) => v.name === name) ?? { name, isRequired: true, isSecret: false };
      // In a value marked secret every part the user fills is secret too.
      return this.valueOf(secret ? { ...declared, isSecret: true } : declared) ?? whole;
    });
  }

  check(serverName: string): void {
    if (this.missing.length === 0) return;
    const names = [...new Set(this.missing)];
    throw new GatewayError(
      'invalid_request',
      `${serverName} needs ${names.map((name) => `"${name}"`).join(', ')}; pass ${names
        .map((name) => `--env ${name}=VALUE`)
        .join(' ')} (nothing was written)`,
      { details: { missing: names } },
    );
  }
}

/** Secret names allow letters, digits, `_`, `.`, `-`; anything else becomes `_`. */
function secretName(name: string): string {
  return name.replace(/[^A-Za-z0-9_.-]/g, '_').replace(/^[.-]+/, '');
}

function pinned(pkg: ServerPackage, server: ServerJson, separator: string): string {
  const version = pkg.version ?? server.version;
  return version && version !== 'latest' ? `${pkg.identifier}${separator}${version}` : pkg.identifier;
}

function packageEntry(
  command: string,
  head: string[],
  pkg: ServerPackage,
  context: Context,
): ServerEntryDraft {
  const args = [...head];
  for (const arg of pkg.packageArguments) {
    const value = arg.isSecret
      ? context.valueOf({ name: arg.name ?? 'ARG', isRequired: arg.isRequired, isSecret: true })
      : (arg.value ?? arg.default);
    if (arg.type === 'named' && arg.name) args.push(arg.name);
    if (value !== undefined) args.push(value);
  }
  const env: Record<string, string> = {};
  for (const variable of pkg.environmentVariables) {
    const value = context.valueOf(variable, variable.value);
    if (value !== undefined) env[variable.name] = value;
  }
  return { command, args, ...(Object.keys(env).length > 0 ? { env } : {}) };
}

function remoteEntry(remote: ServerRemote, context: Context): ServerEntryDraft {
  const url = context.fill(remote.url, remote.variables);
  const headers: Record<string, string> = {};
  for (const header of remote.headers) {
    const value =
      header.value === undefined
        ? context.valueOf(header)
        : context.fill(header.value, [...(header.variables ?? []), ...remote.variables], header.isSecret);
    if (value !== undefined) headers[header.name] = value;
  }
  return { url, transport: remote.type, ...(Object.keys(headers).length > 0 ? { headers } : {}) };
}

function mcpbPlan(pkg: ServerPackage, server: ServerJson): Omit<InstallPlan, 'key' | 'secrets' | 'origin'> {
  if (!pkg.fileSha256 || !/^[0-9a-f]{64}$/.test(pkg.fileSha256)) {
    throw new GatewayError(
      'invalid_request',
      `${server.name}: its MCPB package has no valid "fileSha256", so the bundle cannot be checked; not installed`,
    );
  }
  return { via: 'mcpb', entry: {}, bundle: { url: pkg.identifier, sha256: pkg.fileSha256 } };
}

function runtimePlan(
  server: ServerJson,
  options: PlanOptions,
  context: Context,
): Omit<InstallPlan, 'key' | 'secrets' | 'origin'> {
  const types = [...new Set(server.packages.map((pkg) => pkg.registryType))];
  for (const type of ['pypi', 'oci']) {
    const pkg = server.packages.find((p) => p.registryType === type && p.transport === 'stdio');
    const runtime = RUNTIMES[type];
    if (!pkg || !runtime || !options.hasCommand(runtime.command)) continue;
    const entry =
      type === 'pypi'
        ? packageEntry('uvx', [pinned(pkg, server, '==')], pkg, context)
        : packageEntry('docker', ['run', '-i', '--rm', pinned(pkg, server, ':')], pkg, context);
    if (type === 'oci' && entry.env) {
      // `docker run` passes only the variables it is told to: one `-e NAME` per variable.
      const names = Object.keys(entry.env as Record<string, string>);
      (entry.args as string[]).splice(3, 0, ...names.flatMap((name) => ['-e', name]));
    }
    return { via: type, entry };
  }
  const needs = types
    .map((type) => RUNTIMES[type])
    .filter((runtime) => runtime !== undefined)
    .map((runtime) => `${runtime.runtime}, and \`${runtime.command}\` is not on PATH here`);
  throw new GatewayError(
    'invalid_request',
    needs.length > 0
      ? `${server.name} can only be installed as ${types.join(' or ')}: ${needs.join('; ')}. Install it, or pick a server with an npm package or a remote endpoint (nothing was written)`
      : `${server.name} has no package or remote endpoint Aperture can run (packages: ${types.join(', ') || 'none'}; remotes: ${server.remotes.length}); nothing was written`,
  );
}
