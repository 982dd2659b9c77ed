import type { Command } from 'commander';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { terminalSafe } from '../foundation/util/terminal-safe.js';
import type { CacheInvalidation } from '../surfaces/console/admin-contract.js';
import { type AdminClientOptions, adminRequest, adminTarget } from './admin-client.js';
import { type GlobalOptions, printJson, runOneShot } from './cli-context.js';

/**
 * `aperture cache clear [--tool ID | --namespace NS]`: drops cached results on a running gateway
 * through its management API (`POST /api/admin/cache/invalidate`); with the state in Redis, on
 * every gateway sharing it. With auth on, an admin API key (`--api-key`, `APERTURE_API_KEY`).
 */
export function cacheCommand(program: Command): void {
  const cache = program
    .command('cache')
    .description("A running gateway's result cache: drop cached results")
    .option(
      '--url <url>',
      "the gateway's base URL (default: APERTURE_URL, else server.host:port of the config)",
    )
    .option('--api-key <key>', 'an admin API key when auth is on (default: APERTURE_API_KEY)');
  cache
    .command('clear')
    .description('Drop the cached results of one tool, of a namespace, or all of them')
    .option('--tool <id>', 'only the results of this tool id')
    .option('--namespace <ns>', 'only the results of the tools of this namespace')
    .option('--json', 'print JSON')
    .action((options: { tool?: string; namespace?: string; json?: boolean }, command: Command) =>
      runOneShot(async () => {
        if (options.tool !== undefined && options.namespace !== undefined) {
          throw new GatewayError('validation_input', 'Give --tool or --namespace, not both');
        }
        const target = await adminTarget(command.optsWithGlobals<AdminClientOptions & GlobalOptions>());
        const body = {
          ...(options.tool !== undefined ? { tool: options.tool } : {}),
          ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
        };
        const answer = (await adminRequest(
          target,
          'POST',
          '/api/admin/cache/invalidate',
          body,
        )) as CacheInvalidation;
        if (options.json) return printJson(answer);
        const what =
          answer.scope === 'all'
            ? 'Cleared the result cache'
            : `Dropped ${answer.dropped ?? 0} cached result(s) of ${answer.scope} ${options.tool ?? options.namespace}`;
        const where = answer.shared ? ' (shared: every gateway on this state)' : '';
        process.stdout.write(`${terminalSafe(`${what}${where}`)}\n`);
      }),
    );
}
