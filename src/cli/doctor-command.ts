import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { downstreamTarget } from '../app/downstream-target.js';
import { OAuthSupport } from '../app/oauth-support.js';
import { PACKAGE_INFO } from '../app/package-info.js';
import { checkSharedState, openCommandState } from '../app/shared-state.js';
import type { ServerConfig } from '../config/config-schema.js';
import { loadConfig } from '../config/load-config.js';
import { GatewayError, toGatewayError } from '../foundation/gateway-error.js';
import { untilAborted } from '../foundation/until-aborted.js';
import { createLogger } from '../operations/create-logger.js';
import { createSecretMasker, maskStrings } from '../operations/secrets/secret-masker.js';
import { listAllTools } from '../sources/mcp/list-all-tools.js';
import type { TokenStatus } from '../sources/mcp/oauth/oauth-credential-store.js';
import type { Connection } from '../sources/mcp/open-connection.js';
import { CapturingLog } from './capturing-log.js';
import {
  atCommandEnd,
  type GlobalOptions,
  intOption,
  logFormatOf,
  printJson,
  runOneShot,
  stateDirOf,
} from './cli-context.js';

interface DoctorOptions extends GlobalOptions {
  timeout: number;
  json?: boolean;
}

/** What `doctor` found out about one server (also its `--json` shape). */
export interface ServerCheck {
  name: string;
  namespace: string;
  kind: 'stdio' | 'remote';
  /** What the connection used; for a server not connected, what the config asks for (`auto` too). */
  transport: string;
  state: 'ok' | 'failed' | 'skipped';
  /** The protocol revision the server speaks (`2026-07-28`, or the 2025 one negotiated); null: not connected. */
  protocolVersion: string | null;
  /** Spawn or reach + initialize; for a failure in that step, the time until it failed. */
  connectMs: number | null;
  /** Every page of tools/list; for a failure in that step, the time until it failed. */
  listMs: number | null;
  tools: number | null;
  server: { name: string; version: string } | null;
  failedStep: 'connect' | 'list' | null;
  error: { code: string; message: string } | null;
  /** What is worth knowing about a server that answered (it wrote non-JSON to stdout…). */
  notes: string[];
  /** An OAuth server's token sets (present, expiry, last refresh error; never a token). */
  oauth?: TokenStatus[];
}

/** How long the command waits for late connections (after a timeout) to close before it returns. */
const CLEANUP_WAIT_MS = 5000;

export function doctorCommand(program: Command): void {
  program
    .command('doctor')
    .description(
      'Check every configured MCP server: connect and initialize, list its tools (all pages), time each step',
    )
    .option('--timeout <ms>', 'per-server time limit for connecting and listing', timeoutOption, 30_000)
    .option('--json', 'print the report as JSON')
    .addHelpText(
      'after',
      `
Servers are checked concurrently; each line is printed as its check ends (disabled ones: skipped).
Exit code 0 when every enabled server answered, 1 when any failed.

Examples:
  $ aperture doctor
  $ aperture doctor --config gw.yaml --timeout 5000 --json`,
    )
    .action((options: DoctorOptions, command: Command) =>
      runOneShot(async () => {
        const global = command.optsWithGlobals<GlobalOptions>();
        const loaded = await loadConfig({ file: global.config, cwd: process.cwd(), env: process.env });
        for (const warning of loaded.warnings) process.stderr.write(`warning: ${warning}\n`);
        const configName = loaded.file ? path.relative(process.cwd(), loaded.file) || loaded.file : undefined;
        const entries = Object.entries(loaded.config.servers);

        // OAuth servers are checked with the tokens a login stored, as the gateway would use them.
        let oauth: OAuthSupport | undefined;
        const support = new OAuthSupport(
          loaded.config,
          createLogger({ level: 'silent', mask: loaded.secretValues, format: logFormatOf(global) }),
        );
        if (support.enabled) {
          const stateDir = stateDirOf();
          const { store: state, close } = await openCommandState(loaded.config, loaded.baseDir, {
            ...(stateDir ? { dir: stateDir } : {}),
            log: createLogger({ level: 'warn', mask: loaded.secretValues, format: logFormatOf(global) }),
          });
          atCommandEnd(close);
          support.bind(state);
          oauth = support;
        }

        // Replicas share their state in Redis: doctor says whether it answers (`state: redis …`).
        const sharedState =
          loaded.config.state.driver === 'redis'
            ? maskStrings(
                await checkSharedState(loaded.config, Math.min(options.timeout, 10_000)),
                createSecretMasker(loaded.secretValues),
              )
            : undefined;
        if (sharedState && !options.json) {
          process.stdout.write(
            `state: redis ${sharedState.url} ${sharedState.state === 'up' ? 'up' : `DOWN (${sharedState.reason ?? 'no answer'})`}\n\n`,
          );
        }

        const started = performance.now();
        const tracker = new ConnectionTracker();
        // Interrupted (SIGINT, SIGTERM, EPIPE): every server started so far is stopped before exit.
        atCommandEnd(() => tracker.closeAll());
        // Without --json each server's line is printed the moment its check ends, so a slow or
        // hanging server does not hide what is already known about the others.
        const table = options.json || entries.length === 0 ? undefined : new StreamingTable(entries);
        table?.header();
        let checks: ServerCheck[];
        try {
          checks = await Promise.all(
            entries.map(async ([name, entry]) => {
              const check = await checkServer(name, entry, {
                baseDir: loaded.baseDir,
                timeoutMs: options.timeout,
                clientInfo: {
                  name: `aperture (${loaded.config.server.name})`,
                  version: PACKAGE_INFO.version,
                },
                tracker,
                ...(oauth ? { oauth } : {}),
              });
              table?.row(check);
              return check;
            }),
          );
        } finally {
          await tracker.settle(CLEANUP_WAIT_MS);
        }
        const totalMs = elapsed(started);
        // Errors and stderr lines may name a URL's key, a header or env value: masked like logs.
        checks = maskStrings(checks, createSecretMasker(loaded.secretValues));
        const summary = summarise(checks, totalMs);

        if (options.json) {
          printJson({
            config: loaded.file ?? null,
            ...(sharedState ? { state: sharedState } : {}),
            servers: checks,
            summary,
          });
        } else if (checks.length === 0) {
          process.stdout.write(
            `No MCP servers configured${configName ? ` in ${configName}` : ' (no config file found)'}; ` +
              'add some under "servers" or "mcpServers".\n',
          );
        } else {
          process.stdout.write(`\n${summaryLine(summary)}\n`);
        }

        if (sharedState && sharedState.state !== 'up') {
          throw new GatewayError(
            'backend_unavailable',
            `doctor: state: redis ${sharedState.url} is not reachable: ${sharedState.reason ?? 'no answer'}`,
          );
        }
        const failed = checks.filter((check) => check.state === 'failed');
        if (failed.length > 0) {
          throw new GatewayError(
            'backend_unavailable',
            `doctor: ${failed.length} of ${summary.checked} servers failed: ${failed.map((c) => c.name).join(', ')}`,
          );
        }
      }),
    );
}

const timeoutOption = intOption('--timeout', 1, 3_600_000);

interface CheckContext {
  baseDir: string;
  timeoutMs: number;
  clientInfo: { name: string; version: string };
  tracker: ConnectionTracker;
  oauth?: OAuthSupport;
}

/** Connects to one server, lists its tools and closes; never throws (failures are in the result). */
async function checkServer(name: string, entry: ServerConfig, context: CheckContext): Promise<ServerCheck> {
  const check: ServerCheck = {
    name,
    namespace: entry.namespace,
    kind: entry.kind,
    transport: entry.kind === 'stdio' ? 'stdio' : entry.transport,
    protocolVersion: null,
    state: 'skipped',
    connectMs: null,
    listMs: null,
    tools: null,
    server: null,
    failedStep: null,
    error: null,
    notes: [],
  };
  if (!entry.enabled) return check;

  const { timeoutMs } = context;
  const endsAt = Date.now() + timeoutMs;
  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new GatewayError('timeout', `no answer within ${timeoutMs} ms (--timeout)`)),
    timeoutMs,
  );
  const log = new CapturingLog();
  let step: 'connect' | 'list' = 'connect';
  let stepStarted = performance.now();
  let connection: Connection | undefined;
  const target = downstreamTarget(
    entry,
    context.baseDir,
    context.oauth ? { name, support: context.oauth } : undefined,
  );
  if (context.oauth && entry.kind === 'remote' && entry.oauth) {
    check.oauth = context.oauth.store.statuses(name);
    for (const set of check.oauth) check.notes.push(tokenNote(set));
  }
  // The MCP client is loaded by the command that connects, not by every command of the CLI.
  const [{ openConnection }, { SHARED_CAPABILITIES }] = await Promise.all([
    import('../sources/mcp/open-connection.js'),
    import('../sources/mcp/downstream-server.js'),
  ]);
  const opening = openConnection(target, {
    clientInfo: context.clientInfo,
    // Same declaration as the gateway's shared connection: some servers list tools according to it.
    capabilities: SHARED_CAPABILITIES,
    log,
    timeoutMs,
    onExit: (exit) => log.exited(exit),
  });
  context.tracker.watch(opening);
  try {
    connection = await untilAborted(opening, deadline.signal);
    check.connectMs = elapsed(stepStarted);
    check.transport = connection.transport;
    check.protocolVersion = connection.protocolVersion ?? null;
    const info = connection.client.getServerVersion();
    if (info) check.server = { name: info.name, version: info.version };

    step = 'list';
    stepStarted = performance.now();
    // The gateway's own listing: every page, and the same error when a server never stops paging.
    const tools = await listAllTools(connection.client, {
      server: name,
      signal: deadline.signal,
      timeoutMs: () => Math.max(1, endsAt - Date.now()),
    });
    check.tools = tools.length;
    check.listMs = elapsed(stepStarted);
    check.state = 'ok';
    const note = log.stdoutNote();
    if (note !== undefined) check.notes.push(note);
  } catch (error) {
    const failure = toGatewayError(deadline.signal.aborted ? deadline.signal.reason : error);
    check.state = 'failed';
    check.failedStep = step;
    if (step === 'connect') check.connectMs = elapsed(stepStarted);
    else check.listMs = elapsed(stepStarted);
    let message = log.explain(oneLine(failure.message));
    // spawn reports a missing working directory as the command not found (ENOENT).
    if (target.kind === 'stdio' && target.cwd !== undefined && !existsSync(target.cwd)) {
      message += ` (cwd ${target.cwd} does not exist)`;
    }
    check.error = { code: failure.code, message };
  } finally {
    clearTimeout(timer);
    if (connection) await context.tracker.close(connection);
    else context.tracker.closeWhenOpen(opening);
  }
  return check;
}

/** One token set as a doctor note: `oauth: tokens present, expires …` (never the token). */
function tokenNote(set: TokenStatus): string {
  const who = set.identity === '' ? '' : ` (user ${set.identity})`;
  const parts = [set.tokens ? 'tokens present' : 'no tokens'];
  if (set.expiresAt) parts.push(`expires ${set.expiresAt}`);
  if (set.lastRefreshError) parts.push(`last refresh error: ${set.lastRefreshError}`);
  return `oauth${who}: ${parts.join(', ')}`;
}

/**
 * Every connection the command opens, so that each is closed: at the end of its check, on SIGINT /
 * SIGTERM, or as soon as it arrives when its check gave up waiting for it. Closing a stdio
 * connection stops the server's process group.
 */
class ConnectionTracker {
  private readonly open = new Set<Connection>();
  private readonly late: Promise<void>[] = [];

  watch(opening: Promise<Connection>): void {
    opening.then(
      (connection) => void this.open.add(connection),
      () => {},
    );
  }

  async close(connection: Connection): Promise<void> {
    this.open.delete(connection);
    await connection.close().catch(() => {});
  }

  /** For a check that timed out while connecting: close the connection if it ever arrives. */
  closeWhenOpen(opening: Promise<Connection>): void {
    this.late.push(
      opening.then(
        (connection) => this.close(connection),
        () => {},
      ),
    );
  }

  async closeAll(): Promise<void> {
    await Promise.allSettled([...this.open].map((connection) => this.close(connection)));
  }

  /** Waits for late connections to be closed, at most `maxMs`. */
  async settle(maxMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled(this.late),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, maxMs);
      }),
    ]);
    clearTimeout(timer);
  }
}

interface Summary {
  servers: number;
  checked: number;
  ok: number;
  failed: number;
  skipped: number;
  tools: number;
  totalMs: number;
}

function summarise(checks: readonly ServerCheck[], totalMs: number): Summary {
  const count = (state: ServerCheck['state']) => checks.filter((c) => c.state === state).length;
  return {
    servers: checks.length,
    checked: checks.length - count('skipped'),
    ok: count('ok'),
    failed: count('failed'),
    skipped: count('skipped'),
    tools: checks.reduce((sum, c) => sum + (c.tools ?? 0), 0),
    totalMs,
  };
}

function summaryLine(s: Summary): string {
  const parts = [`${s.ok} ok`, `${s.failed} failed`];
  if (s.skipped > 0) parts.push(`${s.skipped} skipped`);
  const noun = s.servers === 1 ? 'server' : 'servers';
  return `${s.servers} ${noun}: ${parts.join(', ')}; ${s.tools} tools; ${s.totalMs} ms`;
}

const HEADERS = [
  'SERVER',
  'TRANSPORT',
  'PROTOCOL',
  'STATE',
  'CONNECT',
  'LIST',
  'TOOLS',
  'SERVER INFO',
  'ERROR',
];
/** Columns whose figures read better aligned to the right. */
const RIGHT = new Set([4, 5, 6]);
const MAX_ERROR_CHARS = 200;

/**
 * The report table, written one row at a time as checks end (in the order they end). Column
 * widths are fixed up front from what is known before any check: the server names, the transport
 * names and the time format; a longer cell pushes its row's later cells right.
 */
class StreamingTable {
  private readonly widths: number[];

  constructor(entries: readonly (readonly [string, ServerConfig])[]) {
    const name = Math.max(HEADERS[0]!.length, ...entries.map(([key]) => key.length));
    this.widths = [name, 'streamable-http'.length, 'skipped'.length, 8, 8, 5, 24];
  }

  header(): void {
    process.stdout.write(`${this.line(HEADERS)}\n`);
  }

  row(c: ServerCheck): void {
    process.stdout.write(
      `${this.line([
        c.name,
        c.transport,
        c.protocolVersion ?? '-',
        c.state === 'failed' ? 'FAILED' : c.state,
        ms(c.connectMs),
        ms(c.listMs),
        c.tools === null ? '-' : String(c.tools),
        c.server ? `${c.server.name} ${c.server.version}` : '-',
        c.error
          ? truncate(`${c.failedStep}: ${c.error.message}`, MAX_ERROR_CHARS)
          : truncate(c.notes.map((note) => `note: ${note}`).join('; '), MAX_ERROR_CHARS),
      ])}\n`,
    );
  }

  private line(cells: readonly string[]): string {
    return cells
      .map((cell, i) => {
        if (i === cells.length - 1) return cell;
        const width = this.widths[i] ?? 0;
        return RIGHT.has(i) ? cell.padStart(width) : cell.padEnd(width);
      })
      .join('  ')
      .trimEnd();
  }
}

function ms(value: number | null): string {
  return value === null ? '-' : `${value} ms`;
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

function elapsed(since: number): number {
  return Math.round(performance.now() - since);
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}
