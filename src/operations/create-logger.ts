import pino from 'pino';
import type { Logger } from '../foundation/logger.js';

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';

export interface LoggerOptions {
  level: LogLevel;
  /** File descriptor to write to. Default 2 (stderr): stdout belongs to the MCP stdio protocol. */
  fd?: number;
}

/** Keys whose values never reach a log line. */
export const REDACTED_KEYS = ['authorization', 'cookie', 'password', 'token', 'secret', 'api_key', 'apiKey'];

/** A pino logger writing JSON lines to stderr, with sensitive keys redacted. */
export function createLogger(options: LoggerOptions): Logger {
  const paths = REDACTED_KEYS.flatMap((key) => [key, `*.${key}`, `*.*.${key}`]);
  return pino(
    { level: options.level, base: { app: 'aperture' }, redact: { paths, censor: '[redacted]' } },
    pino.destination({ fd: options.fd ?? 2, sync: true }),
  ) as unknown as Logger;
}
