import { terminalSafe } from '../foundation/util/terminal-safe.js';

/** pino's numeric levels, as a reader expects to see them. */
const LEVEL_NAMES: Readonly<Record<number, string>> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

/** Fields every line has (or that the prefix shows already): not repeated as `key=value`. */
const SHOWN = new Set(['level', 'time', 'msg', 'app', 'pid', 'hostname', 'component']);

/**
 * Turns one JSON log line (as pino writes it, already redacted) into a line for a person at a
 * terminal: `12:04:31.250 WARN  [mcp] message key=value …`, local time. A line that is not a
 * JSON object is passed through as it is, so nothing is ever lost to the formatting — except that
 * no control or bidirectional character reaches the terminal (`terminalSafe`).
 */
export function prettyLogLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(line);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      return terminalSafe(line, true);
    entry = parsed as Record<string, unknown>;
  } catch {
    return terminalSafe(line, true);
  }
  const level = typeof entry.level === 'number' ? (LEVEL_NAMES[entry.level] ?? String(entry.level)) : 'LOG';
  const time = typeof entry.time === 'number' ? clock(new Date(entry.time)) : clock(new Date());
  const component = typeof entry.component === 'string' ? ` [${entry.component}]` : '';
  const message = typeof entry.msg === 'string' ? ` ${entry.msg}` : '';
  const fields = Object.entries(entry)
    .filter(([key]) => !SHOWN.has(key))
    .map(([key, value]) => ` ${key}=${fieldText(value)}`)
    .join('');
  // Messages and fields carry downstream text (stderr lines, tool names, errors): shown, not obeyed.
  return `${terminalSafe(`${time} ${level.padEnd(5)}${component}${message}${fields}`)}\n`;
}

function clock(date: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  const ms = String(date.getMilliseconds()).padStart(3, '0');
  return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}.${ms}`;
}

/** Plain words stay bare; anything with spaces, quotes or structure is JSON, so it reads back unambiguously. */
function fieldText(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (isError(value)) return JSON.stringify(value.message);
  return JSON.stringify(value) ?? String(value);
}

function isError(value: unknown): value is { message: string } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { message?: unknown }).message === 'string' &&
    typeof (value as { stack?: unknown }).stack === 'string'
  );
}
