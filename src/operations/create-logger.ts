import pino from 'pino';
import type { Logger } from '../foundation/logger.js';
import { createLogRedactor } from './secrets/log-redactor.js';

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';

export interface LoggerOptions {
  level: LogLevel;
  /** File descriptor to write to. Default 2 (stderr): stdout belongs to the MCP stdio protocol. */
  fd?: number;
  /** Where lines go instead of `fd` (tests, embedding applications). */
  destination?: pino.DestinationStream;
  /**
   * Values replaced by `[REDACTED]` wherever they occur in a line — message, fields at any depth,
   * errors: the resolved secrets (`LoadedConfig.secretValues`).
   */
  mask?: readonly string[];
}

/**
 * A pino logger writing JSON lines to stderr. Every line passes through one redaction step before
 * it is written: values under sensitive keys and the `mask` values become `[REDACTED]` (pino's own
 * `redact` takes fixed paths only, not "this key at any depth, in any case").
 */
export function createLogger(options: LoggerOptions): Logger {
  const redact = createLogRedactor(options.mask);
  return pino(
    { level: options.level, base: { app: 'aperture' }, hooks: { streamWrite: redact } },
    options.destination ?? pino.destination({ fd: options.fd ?? 2, sync: true }),
  ) as unknown as Logger;
}
