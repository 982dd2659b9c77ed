import type { Command } from 'commander';
import { openCommandState } from '../app/shared-state.js';
import type { TrustRecord } from '../catalog/trust/trust-store.js';
import { TrustStore } from '../catalog/trust/trust-store.js';
import { loadConfig } from '../config/load-config.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { terminalSafe } from '../foundation/util/terminal-safe.js';
import { createLogger } from '../operations/create-logger.js';
import {
  atCommandEnd,
  type GlobalOptions,
  logFormatOf,
  printJson,
  runOneShot,
  stateDirOf,
} from './cli-context.js';
import { invokedAs } from './invoked-as.js';

/**
 * `aperture trust list` / `aperture trust approve ID…`: the trust records of the config's state
 * store, read and written directly — the same store a running gateway keeps them in, which sees
 * an approval made here within a second and serves the approved tool again.
 */
export function trustCommand(program: Command): void {
  const trust = program
    .command('trust')
    .description('Trust on first use of downstream tools: list changed or flagged tools, approve them');
  trust
    .command('list')
    .description('List tools changed since they were trusted or flagged as poisoning, awaiting approval')
    .option('--all', 'also list the trusted tools')
    .option('--json', 'print JSON')
    .action((options: { all?: boolean; json?: boolean }, command: Command) =>
      runOneShot(async () => {
        const store = await openTrustStore(command.optsWithGlobals<GlobalOptions>());
        const records = options.all ? store.list() : store.pending();
        if (options.json) return printJson({ tools: records });
        if (records.length === 0) {
          process.stdout.write(options.all ? 'No tool seen yet.\n' : 'No tool awaits approval.\n');
          return;
        }
        for (const record of records) process.stdout.write(`${terminalSafe(recordLine(record))}\n`);
      }),
    );
  trust
    .command('approve')
    .description('Approve the pending version of each tool (a quarantined tool is served again)')
    .argument('<ids...>', 'tool ids as `aperture trust list` prints them')
    .action((ids: string[], _options: unknown, command: Command) =>
      runOneShot(async () => {
        const store = await openTrustStore(command.optsWithGlobals<GlobalOptions>());
        const unknown: string[] = [];
        for (const id of ids) {
          const outcome = store.approve(id, new Date());
          if (outcome === 'unknown') unknown.push(id);
          else if (outcome === 'approved') process.stdout.write(`${terminalSafe(id)}: approved\n`);
          else
            process.stdout.write(
              `${terminalSafe(id)}: nothing to approve (its trusted version is current)\n`,
            );
        }
        if (unknown.length > 0) {
          throw new GatewayError(
            'not_found',
            `No tool seen with id ${unknown.map((id) => `"${id}"`).join(', ')}; \`${invokedAs()} trust list --all\` lists them`,
          );
        }
      }),
    );
}

/** The state store of the config (`--config`, `APERTURE_STATE_DIR`), as the gateway opens it. */
async function openTrustStore(options: GlobalOptions): Promise<TrustStore> {
  const loaded = await loadConfig({ file: options.config, cwd: process.cwd(), env: process.env });
  const log = createLogger({ level: 'warn', mask: loaded.secretValues, format: logFormatOf(options) });
  const dir = stateDirOf();
  const { store: state, close } = await openCommandState(loaded.config, loaded.baseDir, {
    ...(dir ? { dir } : {}),
    log,
  });
  atCommandEnd(close);
  return new TrustStore(state);
}

/** `id  changed (description)  sha256:…` or `id  flagged (concealment in description)  sha256:…`. */
function recordLine(record: TrustRecord): string {
  const pending = record.pending;
  if (!pending) return `${record.id}  trusted  ${record.trusted?.hash ?? ''}`;
  const why =
    pending.findings.length > 0
      ? `flagged (${pending.findings.map((f) => `${f.rule} in ${f.field}`).join(', ')})`
      : pending.changed.length > 0
        ? `changed (${pending.changed.join(', ')})`
        : 'changed';
  return `${record.id}  ${why}  ${pending.hash}`;
}
