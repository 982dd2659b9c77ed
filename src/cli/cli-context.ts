import { InvalidArgumentError } from 'commander';
import { Gateway } from '../app/gateway.js';
import { loadConfig } from '../config/load-config.js';
import { toGatewayError } from '../foundation/gateway-error.js';
import type { Logger } from '../foundation/logger.js';
import { createLogger, type LogLevel } from '../operations/create-logger.js';

/** Options every command accepts. */
export interface GlobalOptions {
  config?: string;
}

/**
 * Loads the config and builds a gateway for a one-shot command. One-shot commands log warnings
 * and errors only, to stderr, so their stdout stays clean for the user (and for `--json`).
 */
export async function openGateway(options: GlobalOptions, level?: LogLevel): Promise<Gateway> {
  const loaded = await loadConfig({ file: options.config, cwd: process.cwd(), env: process.env });
  const log = createLogger({
    level: level ?? minLevel(loaded.config.observability.logLevel, 'warn'),
    mask: loaded.secretValues,
  });
  reportWarnings(loaded.warnings, log, loaded.notices);
  const gateway = await Gateway.create({ loaded, log });
  await gateway.whenReady();
  return gateway;
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
    const failure = toGatewayError(error);
    process.stderr.write(`aperture: ${failure.code}: ${oneLine(failure.message)}\n`);
    process.exitCode = failure.code === 'config_invalid' || failure.code === 'invalid_request' ? 2 : 1;
  }
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

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

const ORDER: LogLevel[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

function minLevel(configured: LogLevel, floor: LogLevel): LogLevel {
  return ORDER.indexOf(configured) > ORDER.indexOf(floor) ? configured : floor;
}
