/*
 * The few calls the SQLite state store makes, so that it runs on either of two SQLite bindings:
 * better-sqlite3 (a native module, compiled for one Node major) and `node:sqlite` (built into
 * Node 22.5+), the fallback when the native module does not load under the Node that runs.
 */

/** A prepared statement. */
export interface SqliteStatement {
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): void;
}

/** An open database. */
export interface SqliteConnection {
  readonly open: boolean;
  exec(sql: string): void;
  prepare(sql: string): SqliteStatement;
  /** Runs `PRAGMA body` and gives the first column of its first row. */
  pragma(body: string): unknown;
  /** Runs `work` in one transaction: all of it or nothing. */
  transaction(work: () => void): void;
  close(): void;
}

/** A SQLite binding: opens (creating) a database file. */
export interface SqliteDriver {
  /** For messages: `better-sqlite3`, `node:sqlite`. */
  readonly name: string;
  open(file: string): SqliteConnection;
}

/** What a binding that cannot load under this Node raises (`isUnloadableBinding`). */
export class SqliteBindingUnavailable extends Error {}

/**
 * Whether an error says that a native module cannot be loaded by this Node (compiled for another
 * Node major, for another platform, or not built at all) — not that a database file is bad.
 */
export function isUnloadableBinding(error: unknown): boolean {
  if (error instanceof SqliteBindingUnavailable) return true;
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ERR_DLOPEN_FAILED' || code === 'MODULE_NOT_FOUND') return true;
  const message = error instanceof Error ? error.message : String(error);
  return /NODE_MODULE_VERSION|compiled against a different Node\.js version|Could not locate the bindings file|invalid ELF header|wrong ELF class|was compiled for/i.test(
    message,
  );
}
