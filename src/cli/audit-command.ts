import { existsSync, watch } from 'node:fs';
import { open } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { AUDIT_FILE } from '../app/features/audit.js';
import { userStateDir } from '../app/state-directory.js';
import { loadConfig } from '../config/load-config.js';
import { silentLogger } from '../foundation/ports/logger.js';
import { terminalSafe } from '../foundation/util/terminal-safe.js';
import type { AuditVerdict } from '../operations/audit/audit-chain.js';
import { type AuditLine, parseAuditLine } from '../operations/audit/audit-line.js';
import { verifyAuditFile } from '../operations/audit/file-audit-trail.js';
import { RedisAuditTrail } from '../operations/audit/redis-audit-trail.js';
import { tailLines } from '../operations/audit/tail-lines.js';
import { atCommandEnd, type GlobalOptions, intOption, runOneShot, stateDirOf } from './cli-context.js';

/** Where the trail of the config is: a file, or the replicas' Redis. */
type Location = { file: string } | { redis: RedisAuditTrail };

/**
 * `aperture audit verify [FILE]` and `aperture audit tail [FILE]`: the audit trail of the config
 * (`audit.path`, else `audit.jsonl` in the state directory, else the replicas' Redis with
 * `state.driver: redis`) or the file named. `verify` checks every line's hash chain and names the
 * first broken line (exit code 1); `tail` prints the last lines, `--follow` then new ones (files).
 */
export function auditCommand(program: Command): void {
  const audit = program
    .command('audit')
    .description('The tamper-evident audit trail: verify its chain, print its last lines');
  audit
    .command('verify')
    .description("Check the audit trail's hash chain; names the first broken line (exit code 1)")
    .argument('[file]', "an audit file (default: the config's trail)")
    .option('--json', 'print JSON')
    .action((file: string | undefined, options: { json?: boolean }, command: Command) =>
      runOneShot(async () => {
        const location = await locate(file, command.optsWithGlobals<GlobalOptions>());
        const verdict =
          'file' in location ? await verifyAuditFile(location.file) : await location.redis.verify();
        const where = 'file' in location ? location.file : 'redis';
        if (options.json) process.stdout.write(`${JSON.stringify({ where, ...verdict })}\n`);
        else process.stdout.write(`${terminalSafe(describe(verdict, where))}\n`);
        if (!verdict.ok) process.exitCode = 1;
      }),
    );
  audit
    .command('tail')
    .description('Print the last lines of the audit trail')
    .argument('[file]', "an audit file (default: the config's trail)")
    .option('-n, --lines <n>', 'how many lines', intOption('--lines', 1, 100_000), 20)
    .option('-f, --follow', 'keep printing lines as they are appended (files)')
    .option('--json', 'print the lines as they are stored')
    .action(
      (
        file: string | undefined,
        options: { lines: number; follow?: boolean; json?: boolean },
        command: Command,
      ) =>
        runOneShot(async () => {
          const location = await locate(file, command.optsWithGlobals<GlobalOptions>());
          const print = (text: string) => {
            const line = parseAuditLine(text);
            process.stdout.write(`${terminalSafe(options.json || !line ? text : readable(line))}\n`);
          };
          if ('redis' in location) {
            for (const line of await location.redis.recent(options.lines)) print(JSON.stringify(line));
            return;
          }
          for (const text of await tailLines(location.file, options.lines)) print(text);
          if (options.follow) await follow(location.file, print);
        }),
    );
}

/** The trail to read: the file given, else the config's. */
async function locate(file: string | undefined, options: GlobalOptions): Promise<Location> {
  if (file !== undefined) return { file: resolve(process.cwd(), file) };
  const { config, baseDir } = await loadConfig({
    file: options.config,
    cwd: process.cwd(),
    env: process.env,
  });
  const redis = config.state.driver === 'redis' ? config.state.redis : undefined;
  if (redis) {
    const { createRedisConnection } = await import('../operations/state/redis-connection.js');
    const connection = createRedisConnection(
      {
        url: redis.url,
        prefix: redis.prefix,
        tls: redis.tls,
        username: redis.username,
        password: redis.password,
        commandTimeoutMs: redis.commandTimeoutMs,
      },
      silentLogger,
    );
    atCommandEnd(() => connection.close());
    await connection.whenUp(5000);
    return { redis: new RedisAuditTrail({ connection }) };
  }
  if (config.audit.path !== undefined) return { file: resolve(baseDir, config.audit.path) };
  const dir = stateDirOf() ?? resolve(baseDir, config.state.dir);
  const here = join(dir, AUDIT_FILE);
  // The gateway falls back to the per-user state directory when the configured one cannot be created.
  const fallback = join(userStateDir(), AUDIT_FILE);
  return { file: !existsSync(here) && existsSync(fallback) ? fallback : here };
}

function describe(verdict: AuditVerdict, where: string): string {
  return verdict.ok
    ? `${where}: ${verdict.lines} lines, chain intact (head ${verdict.head})`
    : `${where}: broken at line ${verdict.line} of ${verdict.lines}: ${verdict.reason}`;
}

/** `time  #seq  kind  actor  tool  decision  rule`, then the details as JSON. */
function readable(line: AuditLine): string {
  const parts = [
    line.time,
    `#${line.seq}`,
    line.kind,
    line.actor,
    line.tool,
    line.surface,
    line.decision,
    line.rule,
  ];
  const head = parts.filter((part) => part !== undefined).join('  ');
  return line.details === undefined ? head : `${head}  ${JSON.stringify(line.details)}`;
}

/** Prints what is appended to `file` from now on, until the command is stopped. */
async function follow(file: string, print: (text: string) => void): Promise<void> {
  const handle = await open(file, 'r');
  let position = (await handle.stat()).size;
  let partial = '';
  const read = async () => {
    const { size } = await handle.stat();
    if (size <= position) return;
    const buffer = Buffer.alloc(size - position);
    await handle.read(buffer, 0, buffer.length, position);
    position = size;
    const lines = (partial + buffer.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) print(line);
  };
  let reading = Promise.resolve();
  const watcher = watch(file, () => {
    reading = reading.then(read).catch(() => {});
  });
  // A poll as well: some file systems (network, containers' overlays) do not report changes.
  const timer = setInterval(() => {
    reading = reading.then(read).catch(() => {});
  }, 1000);
  await new Promise<void>((resolveStop) => {
    atCommandEnd(async () => {
      watcher.close();
      clearInterval(timer);
      await handle.close();
      resolveStop();
    });
  });
}
