import { readFile, writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { createSnapshot, diffSnapshots, formatDiff, parseSnapshot } from '../catalog/trust/catalog-diff.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { terminalSafe } from '../foundation/util/terminal-safe.js';
import { type GlobalOptions, openGateway, printJson, runOneShot } from './cli-context.js';

/**
 * `aperture catalog snapshot [--out FILE]` and `aperture catalog diff FILE`: the fingerprint of
 * every visible tool (name, title, description, schemas, annotations), and what changed since a
 * snapshot, tool by tool — drift a review or a CI job can catch.
 */
export function catalogCommand(program: Command): void {
  const catalog = program.command('catalog').description('Catalog snapshots and drift');
  catalog
    .command('snapshot')
    .description("Write every visible tool's fingerprint as JSON (to stdout, or --out FILE)")
    .option('--out <file>', 'write to this file instead of stdout')
    .action((options: { out?: string }, command: Command) =>
      runOneShot(async () => {
        const gateway = await openGateway(command.optsWithGlobals<GlobalOptions>());
        const snapshot = createSnapshot(gateway.scope.tools(), new Date());
        if (options.out === undefined) return printJson(snapshot);
        await writeFile(options.out, `${JSON.stringify(snapshot, null, 2)}\n`);
        process.stderr.write(`${Object.keys(snapshot.tools).length} tools written to ${options.out}\n`);
      }),
    );
  catalog
    .command('diff')
    .description('Show what changed since a snapshot, tool by tool')
    .argument('<file>', 'a file written by `aperture catalog snapshot --out`')
    .option('--json', 'print JSON')
    .action((file: string, options: { json?: boolean }, command: Command) =>
      runOneShot(async () => {
        let text: string;
        try {
          text = await readFile(file, 'utf8');
        } catch (error) {
          throw new GatewayError('invalid_request', `Cannot read ${file}: ${(error as Error).message}`);
        }
        const before = parseSnapshot(text, file);
        const gateway = await openGateway(command.optsWithGlobals<GlobalOptions>());
        const diff = diffSnapshots(before, createSnapshot(gateway.scope.tools(), new Date()));
        if (options.json) return printJson({ since: before.createdAt, ...diff });
        process.stdout.write(terminalSafe(formatDiff(diff, `${file} (${before.createdAt})`), true));
      }),
    );
}
