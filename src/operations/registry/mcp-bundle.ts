import { createHash } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { isRecord } from '../../foundation/util/is-record.js';

/*
 * MCP Bundles (`.mcpb`, formerly `.dxt`): a zip with a `manifest.json` at its root (name, version,
 * `server: { type: node | python | binary, entry_point, mcp_config: { command, args, env } }`,
 * `user_config: { KEY: { type, title, description, required, sensitive, default } }`) and the
 * server's files. `mcp_config` may use `${__dirname}` (the unpacked bundle) and
 * `${user_config.KEY}` (what the user configured). Unpacked into the state directory, the bundle
 * becomes one stdio server entry; sensitive user-config fields become `${secret:KEY}` references.
 */

/** A bundle's manifest, as far as the gateway uses it. */
export interface BundleManifest {
  name: string;
  version: string;
  description: string;
  serverType: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  userConfig: Record<
    string,
    { required: boolean; sensitive: boolean; default?: string; description?: string }
  >;
}

/** The SHA-256 of bytes, hex. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Reads a bundle's files and manifest; throws `invalid_request` for anything that is not one. */
export function readBundle(
  bytes: Uint8Array,
  source: string,
): { files: Record<string, Uint8Array>; manifest: BundleManifest } {
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes);
  } catch (error) {
    throw new GatewayError(
      'invalid_request',
      `${source} is not an MCP Bundle (not a zip file: ${(error as Error).message})`,
    );
  }
  for (const name of Object.keys(files)) {
    // Zip-slip: every file must land inside the bundle's folder.
    if (name.startsWith('/') || name.split(/[\\/]/).includes('..') || /^[a-zA-Z]:/.test(name)) {
      throw new GatewayError(
        'invalid_request',
        `${source}: the bundle holds a file outside its folder ("${name}"); refused`,
      );
    }
  }
  const raw = files['manifest.json'];
  if (raw === undefined)
    throw new GatewayError('invalid_request', `${source}: no manifest.json at the root of the bundle`);
  let manifest: unknown;
  try {
    manifest = JSON.parse(new TextDecoder().decode(raw));
  } catch {
    throw new GatewayError('invalid_request', `${source}: manifest.json is not JSON`);
  }
  return { files, manifest: parseManifest(manifest, source) };
}

function parseManifest(raw: unknown, source: string): BundleManifest {
  const fail = (what: string) => new GatewayError('invalid_request', `${source}: manifest.json ${what}`);
  if (!isRecord(raw)) throw fail('is not an object');
  if (typeof raw.name !== 'string' || raw.name === '') throw fail('has no "name"');
  const server = raw.server;
  if (!isRecord(server) || !isRecord(server.mcp_config)) throw fail('has no "server.mcp_config"');
  const config = server.mcp_config;
  if (typeof config.command !== 'string' || config.command === '')
    throw fail('has no "server.mcp_config.command"');
  const args = Array.isArray(config.args) ? config.args.map(String) : [];
  const env = isRecord(config.env)
    ? Object.fromEntries(Object.entries(config.env).map(([k, v]) => [k, String(v)]))
    : {};
  const userConfig: BundleManifest['userConfig'] = {};
  if (isRecord(raw.user_config)) {
    for (const [key, field] of Object.entries(raw.user_config)) {
      if (!isRecord(field)) continue;
      userConfig[key] = {
        required: field.required === true,
        sensitive: field.sensitive === true,
        ...(field.default === undefined ? {} : { default: String(field.default) }),
        ...(typeof field.description === 'string' ? { description: field.description } : {}),
      };
    }
  }
  return {
    name: raw.name,
    version: typeof raw.version === 'string' ? raw.version : '0.0.0',
    description: typeof raw.description === 'string' ? raw.description : '',
    serverType: typeof server.type === 'string' ? server.type : 'node',
    command: config.command,
    args,
    env,
    userConfig,
  };
}

/**
 * Writes the bundle's files to `<stateDir>/bundles/<name>-<version>-<sha12>` (a temporary folder
 * renamed into place, so a half-written bundle is never used) and returns the folder.
 */
export async function unpackBundle(
  files: Record<string, Uint8Array>,
  manifest: BundleManifest,
  sha256: string,
  stateDir: string,
): Promise<string> {
  const safe = `${manifest.name}-${manifest.version}`.replace(/[^A-Za-z0-9_.-]+/g, '-');
  const target = path.join(stateDir, 'bundles', `${safe}-${sha256.slice(0, 12)}`);
  const temporary = `${target}.${process.pid}.tmp`;
  await rm(temporary, { recursive: true, force: true });
  for (const [name, bytes] of Object.entries(files)) {
    if (name.endsWith('/')) continue;
    const file = path.join(temporary, name);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, bytes);
  }
  await rm(target, { recursive: true, force: true });
  await rename(temporary, target);
  return target;
}

/**
 * The stdio server entry of an unpacked bundle: `${__dirname}` is its folder, `${user_config.KEY}`
 * the value given (`values`), its default, or `${secret:KEY}` for a sensitive field. A required
 * field with no value fails, naming it.
 */
export function bundleEntry(
  manifest: BundleManifest,
  dir: string,
  values: Readonly<Record<string, string>>,
): { entry: Record<string, unknown>; secrets: string[] } {
  const secrets = new Set<string>();
  const missing = new Set<string>();
  const fill = (text: string) =>
    text
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the manifest's own placeholder syntax.
      .replaceAll('${__dirname}', dir)
      .replace(/\$\{user_config\.([A-Za-z0-9_.-]+)\}/g, (whole, key: string) => {
        const field = manifest.userConfig[key];
        if (field?.sensitive) {
          secrets.add(key);
          return `\${secret:${key}}`;
        }
        const value = values[key] ?? field?.default;
        if (value === undefined) {
          if (field?.required !== false) missing.add(key);
          return whole;
        }
        return value;
      });
  const entry = {
    command: fill(manifest.command),
    args: manifest.args.map(fill),
    ...(Object.keys(manifest.env).length > 0
      ? { env: Object.fromEntries(Object.entries(manifest.env).map(([k, v]) => [k, fill(v)])) }
      : {}),
  };
  if (missing.size > 0) {
    const names = [...missing];
    throw new GatewayError(
      'invalid_request',
      `${manifest.name} needs ${names.map((n) => `"${n}"`).join(', ')}; pass ${names.map((n) => `--env ${n}=VALUE`).join(' ')} (nothing was written)`,
    );
  }
  return { entry, secrets: [...secrets] };
}
