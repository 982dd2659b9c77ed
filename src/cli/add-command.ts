import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { InvalidArgumentError, Option } from 'commander';
import { stringify } from 'yaml';
import { commandExists } from '../config/command-on-path.js';
import { withServerEntry, writeConfigText } from '../config/config-file-edit.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { isRecord } from '../foundation/util/is-record.js';
import { defaultKey, type InstallPlan, planInstall } from '../operations/registry/install-plan.js';
import { bundleEntry, readBundle, sha256Hex, unpackBundle } from '../operations/registry/mcp-bundle.js';
import { npmIntegrity } from '../operations/registry/npm-integrity.js';
import { neededVariables } from '../operations/registry/server-json.js';
import { type GlobalOptions, printJson, runOneShot, stateDirOf } from './cli-context.js';
import { parseServerSpec } from './registry-command.js';
import {
  assertLoadable,
  configFileOf,
  readRawConfig,
  registryClientOf,
  safeLines,
} from './registry-context.js';

/** Options of `aperture add`. */
interface AddOptions {
  as?: string;
  env: Record<string, string>;
  dryRun?: boolean;
  json?: boolean;
  trust: string;
}

/** Collects `--env NAME=VALUE` into a record. */
function envOption(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError(`--env takes NAME=VALUE (got "${value}")`);
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
}

/**
 * `aperture add NAME[@VERSION]`: installs a server from the MCP registries into the config file:
 * resolves its `server.json` to one `servers.<key>` entry (`planInstall`), checks that the config
 * still loads with it, and writes it with the file's comments and order kept. A running gateway
 * watching the file picks the server up by hot reload. Secrets are written as `${secret:NAME}`
 * references only; their values are stored by the user (docs/INSTALL.md).
 */
export function addCommand(program: Command): void {
  program
    .command('add')
    .description(
      'Install a server from the MCP registries into the config file (hot-reloaded by a running gateway)',
    )
    .argument('<name>', 'registry name, NAME or NAME@VERSION (`aperture registry search` finds names)')
    .option('--as <key>', 'the key under `servers` (default: the last part of the name)')
    .option(
      '--env <NAME=VALUE>',
      'a value for one of the variables the server needs (repeatable)',
      envOption,
      {},
    )
    .addOption(
      new Option(
        '--trust <tier>',
        'the trust tier written for the server: its new or changed tools are served (auto), served when the poisoning detector passes them (scan) or wait for approval (manual)',
      )
        .choices(['auto', 'scan', 'manual'])
        .default('scan'),
    )
    .option('--dry-run', 'print the entry that would be written; change nothing')
    .option('--json', 'print JSON')
    .action((spec: string, options: AddOptions, command: Command) =>
      runOneShot(async () => {
        const global = command.optsWithGlobals<GlobalOptions>();
        const file = configFileOf(global);
        const { text, raw } = await readRawConfig(file);
        if (isBundlePath(spec)) {
          const bytes = await readFile(path.resolve(process.cwd(), spec)).then(
            (buffer) => new Uint8Array(buffer),
            (error: NodeJS.ErrnoException) => {
              throw new GatewayError(
                'not_found',
                `cannot read the bundle ${spec}: ${error.code ?? error.message}`,
              );
            },
          );
          return addBundle({
            bytes,
            source: spec,
            file,
            text,
            raw,
            options,
            origin: `bundle ${path.basename(spec)}`,
          });
        }
        const { client } = registryClientOf(file, raw, global);
        const { name, version } = parseServerSpec(spec);
        const hit = await client.server(name, version);
        const planWith = (values: Record<string, string>) =>
          planInstall(hit.server, {
            ...(options.as === undefined ? {} : { key: options.as }),
            values,
            registry: hit.registry,
            trust: options.trust,
            hasCommand: (program) => commandExists(program, process.env, process.cwd()),
          });
        const plan = await withPrompts(options.env, planWith);
        if (plan.bundle) {
          const bytes = await download(plan.bundle.url);
          const actual = sha256Hex(bytes);
          if (actual !== plan.bundle.sha256) {
            throw new GatewayError(
              'backend_unavailable',
              `the bundle of ${hit.server.name} (${plan.bundle.url}) does not match its fileSha256: the registry says ${plan.bundle.sha256}, the file is ${actual}; not installed, nothing was written`,
            );
          }
          return addBundle({
            bytes,
            source: plan.bundle.url,
            file,
            text,
            raw,
            options: { ...options, as: plan.key },
            origin: `${hit.server.name}@${hit.server.version} from registry ${hit.registry} (mcpb)`,
          });
        }
        // The pinned version's integrity, from the package registry, recorded beside the entry.
        const integrity =
          plan.npmVersionUrl === undefined ? undefined : await npmIntegrity(plan.npmVersionUrl);
        if (integrity !== undefined) plan.origin += `, integrity ${integrity}`;
        const next = withServerEntry(
          text,
          file,
          plan.key,
          plan.entry,
          `added by aperture add: ${plan.origin}`,
        );
        assertLoadable(next, file);
        const ignoredSecrets = neededVariables(hit.server)
          .filter((variable) => variable.isSecret && options.env[variable.name] !== undefined)
          .map((variable) => variable.name);
        if (!options.dryRun) await writeConfigText(file, next);
        report(plan, file, options, ignoredSecrets);
      }),
    );
}

function report(plan: InstallPlan, file: string, options: AddOptions, ignoredSecrets: string[]): void {
  if (options.json) {
    printJson({
      key: plan.key,
      via: plan.via,
      entry: plan.entry,
      secrets: plan.secrets,
      file,
      written: !options.dryRun,
    });
    return;
  }
  const out: string[] = [];
  const where = path.relative(process.cwd(), file) || file;
  out.push(
    options.dryRun
      ? `Dry run: would add server "${plan.key}" (${plan.origin}) to ${where}; nothing written:`
      : `Added server "${plan.key}" (${plan.origin}) to ${where}:`,
  );
  out.push(
    stringify({ servers: { [plan.key]: plan.entry } })
      .trimEnd()
      .split('\n')
      .map((line) => `  ${line}`)
      .join('\n'),
  );
  for (const name of ignoredSecrets) {
    out.push(`${name} is a secret: its --env value was not written into the config.`);
  }
  if (plan.secrets.length > 0) {
    out.push(
      `Store ${plan.secrets.length === 1 ? 'this secret' : 'these secrets'} before the server can start: ${plan.secrets.join(', ')} ` +
        "(with the default secrets provider, an environment variable of the same name in the gateway's environment).",
    );
  }
  process.stdout.write(safeLines(out.join('\n')));
}

/** `./x.mcpb`, `/abs/x.mcpb`, `x.mcpb`: a bundle file rather than a registry name. */
function isBundlePath(spec: string): boolean {
  return (
    /\.(mcpb|dxt)$/i.test(spec) || spec.startsWith('./') || spec.startsWith('../') || path.isAbsolute(spec)
  );
}

async function download(url: string): Promise<Uint8Array> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(60_000) });
  } catch (error) {
    throw new GatewayError(
      'backend_unavailable',
      `cannot download the bundle ${url}: ${(error as Error).message}`,
    );
  }
  if (!response.ok)
    throw new GatewayError(
      'backend_unavailable',
      `cannot download the bundle ${url}: HTTP ${response.status}`,
    );
  return new Uint8Array(await response.arrayBuffer());
}

/**
 * Adds an MCP Bundle: checks it, builds its entry (the folder it will be unpacked to is known
 * beforehand), checks the config loads with it, then unpacks it into the state directory and
 * writes the config — in that order, so a failure leaves the config as it was.
 */
async function addBundle(input: {
  bytes: Uint8Array;
  source: string;
  file: string;
  text: string;
  raw: Record<string, unknown>;
  options: AddOptions;
  origin: string;
}): Promise<void> {
  const { bytes, source, file, text, raw, options } = input;
  const { files, manifest } = readBundle(bytes, source);
  const sha = sha256Hex(bytes);
  const stateDir = stateDirOf() ?? path.resolve(path.dirname(file), stateDirInConfig(raw));
  const safe = `${manifest.name}-${manifest.version}`.replace(/[^A-Za-z0-9_.-]+/g, '-');
  const dir = path.join(stateDir, 'bundles', `${safe}-${sha.slice(0, 12)}`);
  const { entry, secrets } = bundleEntry(manifest, dir, options.env);
  const key = options.as ?? defaultKey(manifest.name);
  const plan: InstallPlan = {
    key,
    via: 'mcpb',
    entry: { ...entry, trust: options.trust },
    secrets,
    origin: `${input.origin}, ${manifest.name}@${manifest.version} sha256:${sha.slice(0, 12)}`,
  };
  const next = withServerEntry(text, file, key, plan.entry, `added by aperture add: ${plan.origin}`);
  assertLoadable(next, file);
  if (!options.dryRun) {
    const unpacked = await unpackBundle(files, manifest, sha, stateDir);
    if (unpacked !== dir)
      throw new GatewayError('internal', `bundle unpacked to ${unpacked}, expected ${dir}`);
    await writeConfigText(file, next);
  }
  report(plan, file, options, []);
}

/** `state.dir` as written (default `.aperture`), relative to the config file. */
function stateDirInConfig(raw: Record<string, unknown>): string {
  const state = raw.state;
  return isRecord(state) && typeof state.dir === 'string' && state.dir !== '' ? state.dir : '.aperture';
}

/**
 * `plan(values)`, and on a terminal, when values the server requires are missing (never secrets:
 * those are `${secret:…}` references), asks for each on stderr and plans again. Without a terminal
 * the error names the `--env` flags to pass.
 */
async function withPrompts<T>(
  given: Record<string, string>,
  plan: (values: Record<string, string>) => T,
): Promise<T> {
  try {
    return plan(given);
  } catch (error) {
    const missing = error instanceof GatewayError ? error.details?.missing : undefined;
    if (!Array.isArray(missing) || !process.stdin.isTTY || !process.stderr.isTTY) throw error;
    const { createInterface } = await import('node:readline/promises');
    const terminal = createInterface({ input: process.stdin, output: process.stderr });
    const values = { ...given };
    try {
      for (const name of missing as string[]) {
        const answer = (await terminal.question(`${name}: `)).trim();
        if (answer !== '') values[name] = answer;
      }
    } finally {
      terminal.close();
    }
    return plan(values);
  }
}
