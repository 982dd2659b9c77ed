import path from 'node:path';
import type { Command } from 'commander';
import { assertToolsetReferences } from '../config/access-schema.js';
import { loadConfig } from '../config/load-config.js';
import { toolsetWarnings } from '../config/toolset-lint.js';
import { type GlobalOptions, runCommand } from './cli-context.js';
import { configSchemaCommand } from './config-schema-command.js';

export function configCommand(program: Command): void {
  const config = program.command('config').description('Work with config files');
  configSchemaCommand(config);
  config
    .command('validate')
    .description('Validate a config file; errors name the bad key')
    .argument('[file]', 'the config file (default: --config, or ./aperture.yaml)')
    .action((file: string | undefined, _options: unknown, command: Command) =>
      runCommand(async () => {
        const global = command.optsWithGlobals<GlobalOptions>();
        const loaded = await loadConfig({
          file: file ?? global.config,
          cwd: process.cwd(),
          env: process.env,
        });
        const name = loaded.file ? path.relative(process.cwd(), loaded.file) || loaded.file : '(defaults)';
        assertToolsetReferences(loaded.config, name);
        for (const notice of loaded.notices ?? []) process.stderr.write(`info: ${notice}\n`);
        const warnings = [...loaded.warnings, ...(await toolsetWarnings(loaded.config))];
        for (const warning of warnings) process.stderr.write(`warning: ${warning}\n`);
        process.stdout.write(`${name}: valid\n`);
      }),
    );
}
