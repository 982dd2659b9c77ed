import { GatewayError } from '../../foundation/model/gateway-error.js';
import { isRecord } from '../../foundation/util/is-record.js';

/*
 * The `server.json` documents of the MCP Registry, normalised. Two shapes are in the wild and both
 * are read: the 2025-09-29 schema and later (camelCase: `registryType`, `identifier`,
 * `transport: { type }`, `environmentVariables`, `isSecret`, `fileSha256`, list entries wrapped as
 * `{ server, _meta }`) and the 2025-07 preview (snake_case: `registry_name` / `registry_type`,
 * `name` for the identifier, `environment_variables`, `is_secret`, `transport_type`, bare list
 * entries). Unknown fields are ignored; a document without a name is refused.
 */

/** How a package's server is reached. */
export type PackageTransport = 'stdio' | 'streamable-http' | 'sse';

/** One variable a package or remote reads (environment variable or URL / header template variable). */
export interface ServerVariable {
  name: string;
  description?: string;
  isRequired: boolean;
  isSecret: boolean;
  default?: string;
  /** Fixed value the publisher set (`value`), may hold `{template}` variables. */
  value?: string;
  /** The `{template}` variables of `value` (a header `"Bearer {token}"`). */
  variables?: ServerVariable[];
}

/** One argument a package is started with (`packageArguments` / `runtimeArguments`). */
export interface PackageArgument {
  type: 'positional' | 'named';
  /** Named arguments: the flag (`--port`). */
  name?: string;
  value?: string;
  default?: string;
  isRequired: boolean;
  isSecret: boolean;
  description?: string;
}

/** One way to install the server. */
export interface ServerPackage {
  registryType: string;
  identifier: string;
  version?: string;
  transport: PackageTransport;
  /** For an `http` transport in a package: the URL it listens on. */
  transportUrl?: string;
  packageArguments: PackageArgument[];
  environmentVariables: ServerVariable[];
  /** MCPB packages: the SHA-256 of the bundle file, hex. */
  fileSha256?: string;
  /** The package registry it is published in (`https://registry.npmjs.org`). */
  registryBaseUrl?: string;
}

/** One remote endpoint of the server. */
export interface ServerRemote {
  type: 'streamable-http' | 'sse';
  url: string;
  headers: ServerVariable[];
  /** Template variables in the URL (`{tenant}`), newer schema's `variables`. */
  variables: ServerVariable[];
}

/** A server.json, normalised. */
export interface ServerJson {
  name: string;
  description: string;
  version: string;
  title?: string;
  packages: ServerPackage[];
  remotes: ServerRemote[];
}

const str = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
const pick = (raw: Record<string, unknown>, ...keys: string[]): unknown => {
  for (const key of keys) if (raw[key] !== undefined) return raw[key];
  return undefined;
};
const list = (value: unknown): Record<string, unknown>[] =>
  Array.isArray(value) ? value.filter(isRecord) : [];

function variable(raw: Record<string, unknown>): ServerVariable | undefined {
  const name = str(raw.name);
  if (!name) return undefined;
  const description = str(raw.description);
  const def = str(raw.default);
  const value = str(raw.value);
  const nested = raw.variables === undefined ? [] : variables(raw.variables);
  return {
    name,
    ...(nested.length > 0 ? { variables: nested } : {}),
    isRequired: pick(raw, 'isRequired', 'is_required') === true,
    isSecret: pick(raw, 'isSecret', 'is_secret') === true,
    ...(description === undefined ? {} : { description }),
    ...(def === undefined ? {} : { default: def }),
    ...(value === undefined ? {} : { value }),
  };
}

/** `variables: { tenant: { … } }` (an object keyed by name) or a list of named variables. */
function variables(value: unknown): ServerVariable[] {
  if (Array.isArray(value)) return list(value).flatMap((raw) => variable(raw) ?? []);
  if (!isRecord(value)) return [];
  return Object.entries(value).flatMap(([name, raw]) =>
    isRecord(raw) ? (variable({ name, ...raw }) ?? []) : [],
  );
}

function argument(raw: Record<string, unknown>): PackageArgument {
  const name = str(raw.name);
  const value = str(raw.value);
  const def = str(raw.default) ?? str(raw.value_hint) ?? undefined;
  const description = str(raw.description);
  return {
    type: raw.type === 'named' ? 'named' : 'positional',
    isRequired: pick(raw, 'isRequired', 'is_required') === true,
    isSecret: pick(raw, 'isSecret', 'is_secret') === true,
    ...(name === undefined ? {} : { name }),
    ...(value === undefined ? {} : { value }),
    ...(def === undefined ? {} : { default: def }),
    ...(description === undefined ? {} : { description }),
  };
}

function transportOf(raw: Record<string, unknown>): { type: PackageTransport; url?: string } {
  const given = pick(raw, 'transport');
  const type = isRecord(given) ? str(given.type) : str(pick(raw, 'transport_type', 'transportType'));
  const url = isRecord(given) ? str(given.url) : undefined;
  const normalised: PackageTransport =
    type === 'streamable-http' || type === 'http' ? 'streamable-http' : type === 'sse' ? 'sse' : 'stdio';
  return { type: normalised, ...(url === undefined ? {} : { url }) };
}

function serverPackage(raw: Record<string, unknown>): ServerPackage | undefined {
  // 2025-07: `registry_name: npm` and the package in `name`; later: `registryType` and `identifier`.
  const registryType = str(pick(raw, 'registryType', 'registry_type', 'registry_name'));
  const identifier = str(pick(raw, 'identifier', 'name'));
  if (!registryType || !identifier) return undefined;
  const transport = transportOf(raw);
  const version = str(raw.version);
  const fileSha256 = str(pick(raw, 'fileSha256', 'file_sha256'));
  const registryBaseUrl = str(pick(raw, 'registryBaseUrl', 'registry_base_url'));
  return {
    registryType: registryType.toLowerCase(),
    identifier,
    transport: transport.type,
    ...(transport.url === undefined ? {} : { transportUrl: transport.url }),
    packageArguments: list(pick(raw, 'packageArguments', 'package_arguments')).map(argument),
    environmentVariables: list(pick(raw, 'environmentVariables', 'environment_variables')).flatMap(
      (entry) => variable(entry) ?? [],
    ),
    ...(version === undefined ? {} : { version }),
    ...(fileSha256 === undefined ? {} : { fileSha256: fileSha256.toLowerCase() }),
    ...(registryBaseUrl === undefined ? {} : { registryBaseUrl }),
  };
}

function remote(raw: Record<string, unknown>): ServerRemote | undefined {
  const url = str(raw.url);
  const type = str(pick(raw, 'type', 'transport_type'));
  if (!url) return undefined;
  return {
    type: type === 'sse' ? 'sse' : 'streamable-http',
    url,
    headers: list(raw.headers).flatMap((entry) => variable(entry) ?? []),
    variables: variables(raw.variables),
  };
}

/**
 * Reads one server.json (or a registry list entry `{ server, _meta }`). Throws `backend_unavailable`
 * for a document that is not one: the registry's answer is wrong, not the caller's request.
 */
export function parseServerJson(given: unknown, where: string): ServerJson {
  const raw = isRecord(given) && isRecord(given.server) ? given.server : given;
  if (!isRecord(raw) || typeof raw.name !== 'string' || raw.name.trim() === '') {
    throw new GatewayError('backend_unavailable', `${where}: not a server.json document (no "name")`);
  }
  const versionDetail = isRecord(raw.version_detail) ? str(raw.version_detail.version) : undefined;
  const title = str(raw.title);
  return {
    name: raw.name,
    description: str(raw.description) ?? '',
    version: str(raw.version) ?? versionDetail ?? '',
    ...(title === undefined ? {} : { title }),
    packages: list(raw.packages).flatMap((entry) => serverPackage(entry) ?? []),
    remotes: list(raw.remotes).flatMap((entry) => remote(entry) ?? []),
  };
}

/** The variables a server needs from the user across its packages and remotes (deduplicated by name). */
export function neededVariables(server: ServerJson): ServerVariable[] {
  const seen = new Map<string, ServerVariable>();
  const add = (v: ServerVariable) => {
    // A variable with a fixed value needs nothing from the user but its template variables.
    if (v.value === undefined) {
      if (!seen.has(v.name)) seen.set(v.name, v);
      return;
    }
    for (const [, name = ''] of v.value.matchAll(/\{([A-Za-z0-9_.-]+)\}/g)) {
      const declared = v.variables?.find((inner) => inner.name === name) ?? {
        name,
        isRequired: true,
        isSecret: false,
      };
      add(v.isSecret ? { ...declared, isSecret: true } : declared);
    }
  };
  for (const pkg of server.packages) for (const v of pkg.environmentVariables) add(v);
  for (const r of server.remotes) for (const v of [...r.variables, ...r.headers]) add(v);
  return [...seen.values()];
}
