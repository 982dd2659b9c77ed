import type { Command } from 'commander';
import { terminalSafe } from '../foundation/util/terminal-safe.js';
import type { ApprovalAnswer, ApprovalList } from '../surfaces/console/admin-contract.js';
import { type AdminClientOptions, adminRequest, adminTarget } from './admin-client.js';
import { type GlobalOptions, printJson, runOneShot } from './cli-context.js';

/**
 * `aperture approvals list|approve ID|deny ID`: the calls a running gateway holds for approval
 * (`effect: approve`), answered through its management API (`/api/admin/approvals`), as the
 * console answers them. With auth on, an admin API key (`--api-key`, `APERTURE_API_KEY`).
 */
export function approvalsCommand(program: Command): void {
  const approvals = program
    .command('approvals')
    .description('Calls held for approval on a running gateway: list them, approve or deny one')
    .option(
      '--url <url>',
      "the gateway's base URL (default: APERTURE_URL, else server.host:port of the config)",
    )
    .option('--api-key <key>', 'an admin API key when auth is on (default: APERTURE_API_KEY)');
  approvals
    .command('list')
    .description('List the calls waiting for an answer, oldest first')
    .option('--json', 'print JSON')
    .action((options: { json?: boolean }, command: Command) =>
      runOneShot(async () => {
        const target = await adminTarget(command.optsWithGlobals<AdminClientOptions & GlobalOptions>());
        const list = (await adminRequest(target, 'GET', '/api/admin/approvals')) as ApprovalList;
        if (options.json) return printJson(list);
        if (list.approvals.length === 0) {
          process.stdout.write('No call waits for approval.\n');
          return;
        }
        for (const entry of list.approvals) {
          const line = `${entry.id}  ${entry.tool}  by ${entry.caller} (${entry.surface})  rule ${entry.rule}${entry.reason ? `: ${entry.reason}` : ''}  until ${entry.expiresAt}\n    args ${JSON.stringify(entry.args)}`;
          process.stdout.write(`${terminalSafe(line, true)}\n`);
        }
      }),
    );
  for (const decision of ['approve', 'deny'] as const) {
    approvals
      .command(decision)
      .description(
        decision === 'approve'
          ? 'Approve a held call: it runs'
          : 'Deny a held call: its caller gets approval_denied',
      )
      .argument('<id>', 'the id `aperture approvals list` prints')
      .action((id: string, _options: unknown, command: Command) =>
        runOneShot(async () => {
          const target = await adminTarget(command.optsWithGlobals<AdminClientOptions & GlobalOptions>());
          const answer = (await adminRequest(
            target,
            'POST',
            `/api/admin/approvals/${encodeURIComponent(id)}/${decision}`,
          )) as ApprovalAnswer;
          process.stdout.write(`${terminalSafe(`${answer.id}: ${answer.tool} ${answer.outcome}`)}\n`);
        }),
      );
  }
}
