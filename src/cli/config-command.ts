import path from 'node:path';
import type { Command } from 'commander';
import { loadLocalTools } from '../app/local-tools.js';
import { assertToolsetReferences } from '../config/access-schema.js';
import { missingCommandWarnings } from '../config/command-on-path.js';
import { loadConfig } from '../config/load-config.js';
import { toolsetWarnings } from '../config/toolset-lint.js';
import { type GlobalOptions, runOneShot } from './cli-context.js';
import { configSchemaCommand } from './config-schema-command.js';
import { assertPolicyExamples } from './policy-command.js';

export function configCommand(program: Command): void {
  const config = program.command('config').description('Work with config files');
  configSchemaCommand(config);
  config
    .command('validate')
    .description('Validate a config file; errors name the bad key')
    .argument('[file]', 'the config file (default: --config, or ./aperture.yaml)')
    .action((file: string | undefined, _options: unknown, command: Command) =>
      runOneShot(async () => {
        const global = command.optsWithGlobals<GlobalOptions>();
        const loaded = await loadConfig({
          file: file ?? global.config,
          cwd: process.cwd(),
          env: process.env,
        });
        const name = loaded.file ? path.relative(process.cwd(), loaded.file) || loaded.file : '(defaults)';
        assertToolsetReferences(loaded.config, name);
        // What serve loads at start, validate loads too: a bad module is refused by both.
        const localTools = await loadLocalTools(loaded);
        await assertPolicyExamples(loaded, localTools);
        for (const notice of loaded.notices ?? []) process.stderr.write(`info: ${notice}\n`);
        const warnings = [
          ...loaded.warnings,
          ...(await toolsetWarnings(loaded.config)),
          ...missingCommandWarnings(loaded.config.servers, process.env, process.cwd(), loaded.baseDir),
        ];
        for (const warning of warnings) process.stderr.write(`warning: ${warning}\n`);
        process.stdout.write(`${name}: valid\n`);
      }),
    );
}
