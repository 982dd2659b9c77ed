import type { Command } from 'commander';
import { configJsonSchema } from '../config/config-json-schema.js';
import { printJson, runCommand } from './cli-context.js';

/**
 * `aperture config schema`: prints the JSON Schema (draft 2020-12) of the config file, the same
 * the build publishes as `dist/aperture.schema.json` for editors.
 */
export function configSchemaCommand(config: Command): void {
  config
    .command('schema')
    .description('Print the JSON Schema of the config file (for editors: # yaml-language-server: $schema=…)')
    .action(() =>
      runCommand(async () => {
        printJson(configJsonSchema());
      }),
    );
}
