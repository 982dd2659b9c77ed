import { existsSync } from 'node:fs';
import path from 'node:path';
import { InvalidArgumentError } from 'commander';
import { Gateway } from '../app/gateway.js';
import { DEFAULT_STATE_DIR, userStateDir } from '../app/state-directory.js';
import type { ToolScope } from '../composition/tool-scope.js';
import { type LoadedConfig, loadConfig } from '../config/load-config.js';
import { errorForSurface } from '../foundation/model/error-hints.js';
import { ERROR_CODE_TABLE } from '../foundation/model/error-tables.js';
import { type GatewayError, toGatewayError } from '../foundation/model/gateway-error.js';
import type { Logger } from '../foundation/ports/logger.js';
import { CLI_CALLER } from '../foundation/ports/tool-backend.js';
import { terminalSafe } from '../foundation/util/terminal-safe.js';
import { createLogger, LOG_FORMATS, type LogFormat, type LogLevel } from '../operations/create-logger.js';
import { enterConfigChain } from '../sources/mcp/self-launch.js';
import { type OneShotNeeds, oneShotConfig } from './one-shot-scope.js';

/** Options every command accepts. */
export interface GlobalOptions {
  config?: string;
  logFormat?: LogFormat;
}

/** Parses `--log-format`. */
export function logFormatOption(value: string): LogFormat {
  if (!(LOG_FORMATS as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`--log-format must be ${LOG_FORMATS.join(' or ')} (got "${value}")`);
  }
  return value as LogFormat;
}

/**
 * The log format of this run: `--log-format`, else pretty when stderr is a terminal (a person
 * reads it) and JSON otherwise (a client's log file, a collector).
 */
export function logFormatOf(options: GlobalOptions): LogFormat {
  return options.logFormat ?? (process.stderr.isTTY ? 'pretty' : 'json');
}

/**
 * Loads the config and builds a gateway for a one-shot command. One-shot commands log warnings
 * and errors only, to stderr, so their stdout stays clean for the user (and for `--json`). They
 * start only the servers they need (`needs`: `oneShotConfig`), and keep their state in the
 * per-user state directory unless one was chosen (`APERTURE_STATE_DIR`, `state.dir`): a command
 * run in any folder must not leave `./.aperture` there.
 */
export async function openGateway(
  options: GlobalOptions,
  level?: LogLevel,
  needs?: OneShotNeeds,
): Promise<Gateway> {
  return (await openOneShot(options, level, needs)).gateway;
}

/** {@link openGateway}, with the config as loaded (every server, before `needs` narrowed it). */
export async function openOneShot(
  options: GlobalOptions,
  level?: LogLevel,
  needs?: OneShotNeeds,
): Promise<{ gateway: Gateway; loaded: LoadedConfig }> {
  const loaded = await loadConfig({ file: options.config, cwd: process.cwd(), env: process.env });
  enterConfigChain(loaded.file);
  const log = createLogger({
    level: level ?? minLevel(loaded.config.observability.logLevel, 'warn'),
    mask: loaded.secretValues,
    format: logFormatOf(options),
  });
  reportWarnings(loaded.warnings, log, loaded.notices);
  const stateDir = stateDirOf() ?? oneShotStateDir(loaded);
  const gateway = await Gateway.create({
    // Without `needs` (export, catalog snapshots: complete or wrong), every server, waited for fully.
    loaded: needs === undefined ? loaded : { ...loaded, config: oneShotConfig(loaded.config, needs) },
    log,
    ...(stateDir ? { stateDir } : {}),
  });
  // Registered before anything can fail, so that the command's end stops its servers whatever happens.
  atCommandEnd(() => gateway.close());
  // Every server's first try, bounded by startup.waitMs: `run memory:…` must find memory's tools.
  await gateway.whenStarted();
  return { gateway, loaded };
}

/**
 * Where a one-shot command keeps state when no directory was chosen: the project's `.aperture`
 * when `serve` already made it there (its trust approvals and learned queries apply), a
 * `state.dir` the config sets, else the per-user state directory — never a new `./.aperture` in
 * whatever folder the command runs in. Undefined: the config decides.
 */
function oneShotStateDir(loaded: LoadedConfig): string | undefined {
  if (loaded.config.state.dir !== DEFAULT_STATE_DIR) return undefined;
  if (existsSync(path.resolve(loaded.baseDir, DEFAULT_STATE_DIR))) return undefined;
  return userStateDir(process.env);
}

/** What a one-shot command must stop before the process exits (`runOneShot` runs them all). */
const cleanups = new Set<() => Promise<void>>();

/**
 * Registers something a one-shot command must stop before the process exits, however it ends
 * (success, failure, signal, EPIPE): gateways, doctor's connections.
 */
export function atCommandEnd(cleanup: () => Promise<void>): void {
  cleanups.add(cleanup);
}

/** How long stopping the gateway (downstream processes included) may take before the command exits anyway. */
const CLOSE_BOUND_MS = 10_000;

/**
 * The state directory chosen for this run: `--state-dir` (serve), else `APERTURE_STATE_DIR`,
 * resolved against the working directory; undefined when neither is set (the config decides).
 */
export function stateDirOf(flag?: string): string | undefined {
  const chosen = flag ?? (process.env.APERTURE_STATE_DIR || undefined);
  return chosen === undefined ? undefined : path.resolve(process.cwd(), chosen);
}

/** Logs the config's warnings, and its notices (what a pasted client block had that was normalised or ignored) at info. */
export function reportWarnings(
  warnings: readonly string[],
  log: Logger,
  notices: readonly string[] = [],
): void {
  for (const notice of notices) log.info({}, notice);
  for (const warning of warnings) log.warn({}, warning);
}

/** Runs a command body; a failure prints one line to stderr and sets a non-zero exit code. */
export async function runCommand(body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    const failure = errorForSurface(toGatewayError(error), 'cli');
    // The message may quote a downstream server (its error, a tool name): no control reaches the terminal.
    process.stderr.write(`aperture: ${failure.code}: ${terminalSafe(oneLine(failure.message))}\n`);
    process.exitCode = exitCodeOf(failure);
  }
}

/**
 * The exit code of a failure (docs/DESIGN.md §7): 2 for every caller mistake — a bad config, bad
 * arguments (to the command or to the tool it runs: `validation_input`), an unknown tool, a taken
 * port — and 1 for faults (a tool that failed, a server that is down, a bug). Whose fault a code
 * is comes from the one error table.
 */
export function exitCodeOf(failure: GatewayError): 1 | 2 {
  return failure.code === 'config_invalid' || ERROR_CODE_TABLE[failure.code].callerFault ? 2 : 1;
}

/**
 * Runs a one-shot command (`run`, `list`, `search`, …) to its end and exits the process: on
 * success, on failure, on SIGINT/SIGTERM, and when stdout's reader goes away early (EPIPE from
 * `aperture list | head`). Every gateway the command opened is stopped first — downstream server
 * processes included, which live in process groups of their own and would otherwise keep the
 * command (and themselves) alive forever.
 */
export async function runOneShot(body: () => Promise<void>): Promise<void> {
  let ending: Promise<void> | undefined;
  const end = (code: number): Promise<void> => {
    ending ??= stopAll().then(() => exitAfterStdout(code));
    return ending;
  };
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    // The reader is gone (`| head`): nobody wants the rest. Quietly, like `yes | head`'s writer.
    void end(error.code === 'EPIPE' ? 0 : 1);
  });
  // `2>&1 | head`: stderr's reader is gone too; an unhandled 'error' would crash past the cleanup.
  process.stderr.on('error', () => void end(typeof process.exitCode === 'number' ? process.exitCode : 0));
  // 128 + the signal number, as shells report a command ended by one. SIGHUP: the terminal is gone.
  process.once('SIGHUP', () => void end(129));
  process.once('SIGINT', () => void end(130));
  process.once('SIGTERM', () => void end(143));
  await runCommand(body);
  await end(typeof process.exitCode === 'number' ? process.exitCode : 0);
}

/** Runs every registered cleanup, within {@link CLOSE_BOUND_MS}. */
async function stopAll(): Promise<void> {
  const closing = Promise.allSettled([...cleanups].map((cleanup) => cleanup()));
  cleanups.clear();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([closing, new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_BOUND_MS)))]);
  clearTimeout(timer);
}

/** Exits once what was written to stdout has been handed to the OS (a pipe may still hold it). */
function exitAfterStdout(code: number): void {
  if (process.stdout.destroyed || process.stdout.writableLength === 0) process.exit(code);
  process.stdout.write('', () => process.exit(code));
}

/** Parses an integer option (commander hands strings over). */
export function intOption(name: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) {
      // Commander's own error kind: reported as a one-line usage error (exit 2), not a crash.
      throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max} (got "${value}")`);
    }
    return n;
  };
}

/**
 * Prints `value` as indented JSON. JSON escapes C0 controls but not C1 ones or bidirectional
 * characters; `terminalSafe` escapes those too, the same value as JSON (`\u009b`), inert on a TTY.
 */
export function printJson(value: unknown): void {
  process.stdout.write(`${terminalSafe(JSON.stringify(value, null, 2), true)}\n`);
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

const ORDER: LogLevel[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

function minLevel(configured: LogLevel, floor: LogLevel): LogLevel {
  return ORDER.indexOf(configured) > ORDER.indexOf(floor) ? configured : floor;
}

/**
 * What the one-shot commands (`list`, `search`, `describe`, `run`, `export`) see: the catalog (or
 * `toolset`) as the caller `cli`, so a policy rule that denies a tool to that caller for every
 * argument hides it here as it does on every surface (docs/POLICY.md).
 */
export function cliScope(gateway: Gateway, toolset?: string): ToolScope {
  return gateway.toolsets.resolve({ caller: CLI_CALLER, ...(toolset === undefined ? {} : { toolset }) });
}
