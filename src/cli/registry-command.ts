import type { Command } from 'commander';
import { terminalSafe } from '../foundation/util/terminal-safe.js';
import { neededVariables, type ServerJson } from '../operations/registry/server-json.js';
import { type GlobalOptions, intOption, printJson, runOneShot } from './cli-context.js';
import { configFileOf, readRawConfig, registryClientOf, safeLines } from './registry-context.js';

/**
 * `aperture registry search [QUERY]` and `aperture registry show NAME[@VERSION]`: what the MCP
 * registries of the config (`registries:`, default the official one) publish, with what each
 * server needs from the user (its variables, secret or not) before `aperture add` installs it.
 */
export function registryCommand(program: Command): void {
  const registry = program
    .command('registry')
    .description(
      'Search the MCP registries (`registries:` in the config; default the official MCP Registry)',
    );
  registry
    .command('search')
    .description('Find servers by name or description: version, how they run, what they need')
    .argument('[query]', 'words to look for; none: list servers', '')
    .option('--limit <n>', 'results at most (default 30)', intOption('--limit', 1, 1000))
    .option('--json', 'print JSON')
    .action((query: string, options: { limit?: number; json?: boolean }, command: Command) =>
      runOneShot(async () => {
        const global = command.optsWithGlobals<GlobalOptions>();
        const file = configFileOf(global);
        const { raw } = await readRawConfig(file);
        const { client } = registryClientOf(file, raw, global);
        const hits = await client.search(query, options.limit ?? 30);
        if (options.json) {
          return printJson({
            servers: hits.map((hit) => ({ registry: hit.registry, ...summary(hit.server) })),
          });
        }
        if (hits.length === 0) {
          process.stdout.write(`No server matches "${terminalSafe(query)}".\n`);
          return;
        }
        for (const hit of hits) process.stdout.write(safeLines(describe(hit.server)));
      }),
    );
  registry
    .command('show')
    .description('One server as the registry publishes it, and what it needs')
    .argument('<name>', 'NAME or NAME@VERSION')
    .option('--json', 'print the server.json as normalised')
    .action((spec: string, options: { json?: boolean }, command: Command) =>
      runOneShot(async () => {
        const global = command.optsWithGlobals<GlobalOptions>();
        const file = configFileOf(global);
        const { raw } = await readRawConfig(file);
        const { client } = registryClientOf(file, raw, global);
        const { name, version } = parseServerSpec(spec);
        const hit = await client.server(name, version);
        if (options.json) return printJson({ registry: hit.registry, server: hit.server });
        process.stdout.write(safeLines(`${describe(hit.server)}\n  registry: ${hit.registry}`));
      }),
    );
}

/** `io.github.o/s@1.2.0` → name and version; the `@` of a scope-like name start is not a version. */
export function parseServerSpec(spec: string): { name: string; version?: string } {
  const at = spec.lastIndexOf('@');
  if (at <= 0 || at < spec.lastIndexOf('/')) return { name: spec };
  return { name: spec.slice(0, at), version: spec.slice(at + 1) };
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

function summary(server: ServerJson) {
  return {
    name: server.name,
    version: server.version,
    description: server.description,
    runs: ways(server),
    needs: neededVariables(server).map((v) => ({
      name: v.name,
      secret: v.isSecret,
      required: v.isRequired,
      ...(v.description === undefined ? {} : { description: v.description }),
    })),
  };
}

/** Two lines: `name  version  npm, remote(sse)  needs: A (secret), B?` then the description. */
function describe(server: ServerJson): string {
  const needs = neededVariables(server).map(
    (v) => `${v.name}${v.isSecret ? ' (secret)' : ''}${v.isRequired ? '' : '?'}`,
  );
  const head = [server.name, server.version || '-', ways(server).join(', ') || 'nothing runnable'];
  if (needs.length > 0) head.push(`needs: ${needs.join(', ')}`);
  return `${head.join('  ')}\n  ${server.description.replace(/\s+/g, ' ').slice(0, 200)}`;
}
