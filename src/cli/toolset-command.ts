import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type Command, Option } from 'commander';
import { writeConfigText } from '../config/config-file-edit.js';
import {
  type ConfigParts,
  configPartsOf,
  diffToolsets,
  formatToolset,
  parseToolsetFile,
  type ToolsetBundle,
  toolsetFromConfig,
  withToolset,
} from '../config/toolset-code.js';
import { terminalSafe } from '../foundation/util/terminal-safe.js';
import { type GlobalOptions, runOneShot } from './cli-context.js';
import { assertLoadable, configFileOf, readRawConfig, safeLines } from './registry-context.js';

/**
 * `aperture toolset export|import|diff`: toolsets as reviewed code. `export` writes a toolset as a
 * deterministic, secret-free file with the overrides, pins and skills that go with it (docs/INSTALL.md); `import` merges one into the config file
 * (replacing the toolset of its name, comments of the file kept; a running gateway reloads it);
 * `diff` shows what an import would change.
 */
export function toolsetCommand(program: Command): void {
  const toolset = program
    .command('toolset')
    .description('Toolsets as code: export, import and diff toolset files');
  toolset
    .command('export')
    .description('Write a toolset as a deterministic file (stdout, or --output)')
    .argument('<name>', 'the toolset name')
    .addOption(new Option('--format <format>', 'file format').choices(['yaml', 'json']).default('yaml'))
    .option('-o, --output <file>', 'write to this file instead of stdout')
    .action((name: string, options: { format: 'yaml' | 'json'; output?: string }, command: Command) =>
      runOneShot(async () => {
        const file = configFileOf(command.optsWithGlobals<GlobalOptions>());
        const { raw } = await readRawConfig(file);
        const text = formatToolset(toolsetFromConfig(raw, name), options.format);
        if (options.output === undefined) process.stdout.write(text);
        else await writeFile(path.resolve(process.cwd(), options.output), text);
      }),
    );
  toolset
    .command('import')
    .description('Merge a toolset file into the config file (a running gateway reloads it)')
    .argument('<file>', 'a file `aperture toolset export` wrote')
    .option('--dry-run', 'show what would change; write nothing')
    .action((input: string, options: { dryRun?: boolean }, command: Command) =>
      runOneShot(async () => {
        const { file, next, current } = await load(input, command);
        const lines = diffToolsets(current, next);
        if (lines.length === 0) {
          process.stdout.write(
            `Toolset "${terminalSafe(next.toolset.name)}" is already as the file says; nothing written.\n`,
          );
          return;
        }
        const { text } = await readRawConfig(file);
        const updated = withToolset(text, file, next);
        assertLoadable(updated, file);
        if (!options.dryRun) await writeConfigText(file, updated);
        process.stdout.write(
          safeLines(
            [
              `${options.dryRun ? 'Dry run: would import' : 'Imported'} toolset "${next.toolset.name}" into ${path.relative(process.cwd(), file) || file}:`,
              ...lines.map((line) => `  ${line}`),
            ].join('\n'),
          ),
        );
      }),
    );
  toolset
    .command('diff')
    .description('Show what importing a toolset file would change (exit 0 either way)')
    .argument('<file>', 'a file `aperture toolset export` wrote')
    .action((input: string, _options: unknown, command: Command) =>
      runOneShot(async () => {
        const { next, current } = await load(input, command);
        const lines = diffToolsets(current, next);
        process.stdout.write(
          safeLines(lines.length === 0 ? `Toolset "${next.toolset.name}": no change.` : lines.join('\n')),
        );
      }),
    );
}

async function load(
  input: string,
  command: Command,
): Promise<{ file: string; next: ToolsetBundle; current: ConfigParts }> {
  const file = configFileOf(command.optsWithGlobals<GlobalOptions>());
  const next = parseToolsetFile(await readFile(path.resolve(process.cwd(), input), 'utf8'), input);
  const { raw } = await readRawConfig(file);
  return { file, next, current: configPartsOf(raw, next.toolset.name) };
}
