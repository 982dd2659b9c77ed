import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import {
  type ClientConfigFile,
  clientConfigCandidates,
  readClientServers,
} from '../config/client-config-files.js';
import { CONFIG_SCHEMA_FILE_NAME } from '../config/config-json-schema.js';
import { CONFIG_FILE_NAMES } from '../config/load-config.js';
import { starterConfig } from '../config/starter-config.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { runCommand } from './cli-context.js';
import { invokedAs } from './invoked-as.js';

interface InitOptions {
  force?: boolean;
  from?: string;
  import: boolean;
}

/** `dist/aperture.schema.json` of this installation (written by the build), as editors should see it. */
function schemaRef(cwd: string): string {
  const file = fileURLToPath(new URL(`../${CONFIG_SCHEMA_FILE_NAME}`, import.meta.url));
  const relative = path.relative(cwd, file);
  // Inside the project (node_modules/…): a relative path keeps working when the folder moves.
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative.split(path.sep).join('/');
}

/** Env values whose names look like credentials: copied as they are, they deserve a warning. */
function credentialLike(servers: Record<string, unknown>): string[] {
  const names = new Set<string>();
  for (const entry of Object.values(servers)) {
    const env = (entry as { env?: unknown } | null)?.env;
    if (typeof env !== 'object' || env === null) continue;
    for (const [name, value] of Object.entries(env)) {
      if (
        /token|secret|key|password|pass$|auth/i.test(name) &&
        typeof value === 'string' &&
        !value.includes('${')
      ) {
        names.add(name);
      }
    }
  }
  return [...names];
}

/**
 * `aperture init`: writes a commented starter `aperture.yaml` in the current directory, importing
 * the `mcpServers` of the first client config found (or of `--from FILE`). Refuses to overwrite a
 * config file unless `--force` (exit 2). `HOME` decides where the user's client configs are.
 */
export function initCommand(program: Command): void {
  program
    .command('init')
    .description("Write a commented starter aperture.yaml here, importing your MCP client's servers")
    .option('--force', 'overwrite an existing config file')
    .option('--from <file>', 'import the mcpServers (or VS Code servers) of this client config file')
    .option('--no-import', 'do not look for client config files')
    .addHelpText(
      'after',
      `
Looked for, first with servers wins: ./.mcp.json, ./.vscode/mcp.json, ./.cursor/mcp.json,
~/.config/Claude/claude_desktop_config.json (macOS: ~/Library/Application Support/Claude/…),
~/.cursor/mcp.json, ~/.claude.json.`,
    )
    .action((options: InitOptions) =>
      runCommand(async () => {
        const cwd = process.cwd();
        const target = path.join(cwd, 'aperture.yaml');
        const existing = CONFIG_FILE_NAMES.map((name) => path.join(cwd, name)).find((file) =>
          existsSync(file),
        );
        if (existing !== undefined && !options.force) {
          throw new GatewayError(
            'invalid_request',
            `${path.basename(existing)} already exists; run with --force to overwrite ${path.basename(target)}`,
            { details: { file: existing } },
          );
        }
        let source: ClientConfigFile | undefined;
        let servers: Record<string, unknown> = {};
        if (options.from !== undefined) {
          source = { client: 'given', path: path.resolve(cwd, options.from) };
          servers = await readClientServers(source.path, cwd);
        } else if (options.import) {
          const home = process.env.HOME ?? homedir();
          for (const candidate of clientConfigCandidates({ home, cwd, appData: process.env.APPDATA })) {
            if (!existsSync(candidate.path)) continue;
            try {
              servers = await readClientServers(candidate.path, cwd);
            } catch (error) {
              process.stderr.write(`aperture: skipped ${candidate.path}: ${(error as Error).message}\n`);
              continue;
            }
            if (Object.keys(servers).length > 0) {
              source = candidate;
              break;
            }
          }
        }
        // Named as the user started this command: `npx aperture` outside the clone is another package.
        const command = invokedAs();
        const starter = starterConfig({
          schemaRef: schemaRef(cwd),
          command,
          servers,
          ...(source ? { importedFrom: source.path } : {}),
          env: process.env,
        });
        await writeFile(target, starter.text);
        const from = source
          ? ` from ${source.path}${source.client === 'given' ? '' : ` (${source.client})`}`
          : '';
        process.stdout.write(
          `Wrote aperture.yaml${starter.imported.length > 0 ? ` with ${starter.imported.length} server(s)${from}: ${starter.imported.join(', ')}` : ''}\n`,
        );
        for (const { key, reason } of starter.skipped) {
          process.stderr.write(`aperture: not imported (left commented out): ${key}: ${reason}\n`);
        }
        const credentials = credentialLike(
          Object.fromEntries(starter.imported.map((key) => [key, servers[key]])),
        );
        if (credentials.length > 0) {
          process.stderr.write(
            `aperture: aperture.yaml now holds the values of ${credentials.join(', ')}: keep it out of version control, or write \${secret:NAME} instead\n`,
          );
        }
        process.stdout.write(`Next: ${command} config validate && ${command} serve\n`);
      }),
    );
}
