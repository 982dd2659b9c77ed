import type { ServerConfig } from '../config/config-schema.js';
import { terminalSafe } from '../foundation/util/terminal-safe.js';
import type { ServerCheck } from './doctor-server-check.js';

/** The counts of a doctor run (also the `summary` of its `--json` shape). */
export interface Summary {
  servers: number;
  checked: number;
  ok: number;
  failed: number;
  skipped: number;
  /** Servers whose `npx` package was still being installed (present only when there are some). */
  installing?: number;
  tools: number;
  totalMs: number;
}

/** The summary of `checks`, which took `totalMs`. */
export function summarise(checks: readonly ServerCheck[], totalMs: number): Summary {
  const count = (state: ServerCheck['state']) => checks.filter((c) => c.state === state).length;
  return {
    servers: checks.length,
    checked: checks.length - count('skipped'),
    ok: count('ok'),
    failed: count('failed'),
    skipped: count('skipped'),
    ...(count('installing') > 0 ? { installing: count('installing') } : {}),
    tools: checks.reduce((sum, c) => sum + (c.tools ?? 0), 0),
    totalMs,
  };
}

/** `3 servers: 2 ok, 1 failed; 14 tools; 812 ms` */
export function summaryLine(s: Summary): string {
  const parts = [`${s.ok} ok`, `${s.failed} failed`];
  if (s.skipped > 0) parts.push(`${s.skipped} skipped`);
  if (s.installing !== undefined) parts.push(`${s.installing} installing`);
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
 * The report table, written one row at a time as checks end (in the order they end). Each
 * column's width is computed up front from its header and the widest content it can hold: the
 * server names and transports of the config, a protocol revision (`2025-11-25`), the states,
 * times up to 99999 ms; a longer cell (a server's long name and version) pushes its row's later
 * cells right.
 */
export class StreamingTable {
  private readonly widths: number[];

  constructor(entries: readonly (readonly [string, ServerConfig])[]) {
    const transports = entries.map(([, entry]) => (entry.kind === 'stdio' ? 'stdio' : 'streamable-http'));
    // One list per column of HEADERS (the last, ERROR, is never padded): what its cells can be.
    const content: (readonly string[])[] = [
      entries.map(([key]) => key),
      transports,
      ['2025-11-25', '-'],
      ['ok', 'FAILED', 'skipped'],
      ['99999 ms'],
      ['99999 ms'],
      ['99999'],
      ['x'.repeat(24)],
    ];
    this.widths = content.map((cells, i) =>
      Math.max(HEADERS[i]?.length ?? 0, ...cells.map((cell) => terminalSafe(cell).length)),
    );
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
    return (
      cells
        // A cell may hold what a downstream server chose (its name, version, an error it sent).
        .map((raw, i) => {
          const cell = terminalSafe(raw);
          if (i === cells.length - 1) return cell;
          const width = this.widths[i] ?? 0;
          return RIGHT.has(i) ? cell.padStart(width) : cell.padEnd(width);
        })
        .join('  ')
        .trimEnd()
    );
  }
}

function ms(value: number | null): string {
  return value === null ? '-' : `${value} ms`;
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}
