import path from 'node:path';
import type { Command } from 'commander';
import { withoutServerEntry, writeConfigText } from '../config/config-file-edit.js';
import { terminalSafe } from '../foundation/util/terminal-safe.js';
import { type GlobalOptions, runOneShot } from './cli-context.js';
import { assertLoadable, configFileOf, readRawConfig } from './registry-context.js';

/**
 * `aperture remove KEY`: deletes `servers.<KEY>` (or `mcpServers.<KEY>`) from the config file,
 * keeping its comments and order; a running gateway stops the server on its reload.
 */
export function removeCommand(program: Command): void {
  program
    .command('remove')
    .description('Remove a server from the config file (a running gateway stops it on reload)')
    .argument('<key>', 'the key under `servers`')
    .option('--dry-run', 'say what would be removed; change nothing')
    .action((key: string, options: { dryRun?: boolean }, command: Command) =>
      runOneShot(async () => {
        const file = configFileOf(command.optsWithGlobals<GlobalOptions>());
        const { text } = await readRawConfig(file);
        const next = withoutServerEntry(text, file, key);
        assertLoadable(next, file);
        if (!options.dryRun) await writeConfigText(file, next);
        const where = path.relative(process.cwd(), file) || file;
        process.stdout.write(
          `${terminalSafe(options.dryRun ? `Dry run: would remove server "${key}" from ${where}; nothing written.` : `Removed server "${key}" from ${where}.`)}\n`,
        );
      }),
    );
}
