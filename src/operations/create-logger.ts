import pino from 'pino';
import type { Logger } from '../foundation/ports/logger.js';
import { terminalSafe } from '../foundation/util/terminal-safe.js';
import { prettyLogLine } from './pretty-log-line.js';
import { createLogRedactor } from './secrets/log-redactor.js';

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';

/** `json`: one JSON object per line (log collectors); `pretty`: one readable line (a terminal). */
export type LogFormat = 'json' | 'pretty';

/** The log formats, for option parsing. */
export const LOG_FORMATS: readonly LogFormat[] = ['json', 'pretty'];

export interface LoggerOptions {
  level: LogLevel;
  /** File descriptor to write to. Default 2 (stderr): stdout belongs to the MCP stdio protocol. */
  fd?: number | undefined;
  /** Where lines go instead of `fd` (tests, embedding applications). */
  destination?: pino.DestinationStream | undefined;
  /**
   * Values replaced by `[REDACTED]` wherever they occur in a line — message, fields at any depth,
   * errors: the resolved secrets (`LoadedConfig.secretValues`).
   */
  mask?: readonly string[] | undefined;
  /** Default `json`. */
  format?: LogFormat | undefined;
}

/**
 * A pino logger writing JSON lines (or, `format: 'pretty'`, readable ones) to stderr. Every line passes through one redaction step before
 * it is written: values under sensitive keys and the `mask` values become `[REDACTED]` (pino's own
 * `redact` takes fixed paths only, not "this key at any depth, in any case").
 */
export function createLogger(options: LoggerOptions): Logger {
  const redact = createLogRedactor(options.mask);
  // Formatting comes after redaction, so a pretty line masks exactly what a JSON line does.
  // JSON lines escape C0 controls but not C1 or bidirectional ones, which a terminal tailing the
  // log obeys: `terminalSafe` writes them as `\uXXXX`, the same JSON value.
  const write =
    options.format === 'pretty'
      ? (line: string) => prettyLogLine(redact(line))
      : (line: string) => terminalSafe(redact(line), true);
  return pino(
    { level: options.level, base: { app: 'aperture' }, hooks: { streamWrite: write } },
    // Synchronous on purpose: pino's asynchronous destination was measured (docs/PERFORMANCE.md,
    // 2026-11-24) and was no faster per call over stdio and slower under 100 concurrent sessions.
    options.destination ?? pino.destination({ fd: options.fd ?? 2, sync: true }),
  ) as unknown as Logger;
}
