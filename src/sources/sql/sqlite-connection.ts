import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { SqlColumn, SqlConnection, SqlRows, SqlRunOptions } from './sql-connection.js';
import type { ParsedQuery } from './sql-parameters.js';

const require = createRequire(import.meta.url);

/** The part of a SQLite statement used here: better-sqlite3's and node:sqlite's alike. */
interface Statement {
  /** better-sqlite3 only: false for a statement that returns no rows (iterate() would throw). */
  readonly reader?: boolean;
  columns(): { name: string; type: string | null }[];
  iterate(...params: unknown[]): IterableIterator<Record<string, unknown>>;
  run(...params: unknown[]): unknown;
}

/** The part of a read-only SQLite handle used here. */
interface ReadOnlyDatabase {
  prepare(sql: string): Statement;
  close(): void;
}

type BetterSqlite = new (
  file: string,
  options: { readonly: boolean; fileMustExist: boolean },
) => ReadOnlyDatabase & { pragma(text: string): unknown };
type NodeSqlite = {
  DatabaseSync: new (
    file: string,
    options: { readOnly: boolean },
  ) => ReadOnlyDatabase & { exec(sql: string): void };
};

/**
 * Opens `file` read-only: better-sqlite3 first; `node:sqlite` (Node 22.5+) when the native module
 * was built for another Node than the one running (as the state store does).
 */
function openReadOnly(file: string): ReadOnlyDatabase {
  let nativeError: unknown;
  try {
    const Database = require('better-sqlite3') as BetterSqlite;
    const db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma('query_only = ON');
    return db;
  } catch (error) {
    nativeError = error;
  }
  let nodeSqlite: NodeSqlite | undefined;
  try {
    nodeSqlite = require('node:sqlite') as NodeSqlite;
  } catch {
    throw nativeError;
  }
  // node:sqlite would create a missing file even read-only on some versions: check first.
  statSync(file);
  const db = new nodeSqlite.DatabaseSync(file, { readOnly: true });
  db.exec('PRAGMA query_only = ON');
  return db;
}

/**
 * A SQLite database file opened read-only (`readonly: true`, and `PRAGMA query_only` on top), so
 * SQLite itself refuses every write. Opened on the first query: a file that is missing or a
 * native module that does not load fails that tool with `backend_unavailable`, not the gateway.
 *
 * better-sqlite3 runs a query synchronously on the event loop and cannot interrupt it, so
 * `timeoutMs` is not enforced for SQLite: its queries are meant to be the quick lookups a local
 * file serves (documented in docs/TOOLS-FROM-CONFIG.md).
 */
export class SqliteConnection implements SqlConnection {
  private db: ReadOnlyDatabase | undefined;

  constructor(
    private readonly file: string,
    private readonly label: string,
  ) {}

  async query(
    query: ParsedQuery,
    values: Readonly<Record<string, unknown>>,
    options: SqlRunOptions,
  ): Promise<SqlRows> {
    const db = this.open();
    let statement: Statement;
    try {
      statement = db.prepare(query.sqlite);
    } catch (error) {
      throw refused(this.label, error);
    }
    const params = query.uses.map((name) => toParameter(values[name]));
    try {
      if (statement.reader === false) {
        // A statement that returns no rows: run it so that SQLite itself says why it may not.
        statement.run(...params);
        return { columns: [], rows: [], truncated: false };
      }
      const declared = statement.columns();
      const rows: Record<string, unknown>[] = [];
      let truncated = false;
      for (const row of statement.iterate(...params)) {
        if (rows.length >= options.maxRows) {
          truncated = true;
          break; // leaving the loop resets the statement
        }
        rows.push(row);
      }
      const columns: SqlColumn[] = declared.map((column) => ({
        name: column.name,
        type: column.type?.toLowerCase() ?? valueType(rows[0]?.[column.name]),
      }));
      return { columns, rows: rows.map(plain), truncated };
    } catch (error) {
      throw refused(this.label, error);
    }
  }

  async close(): Promise<void> {
    this.db?.close();
    this.db = undefined;
  }

  private open(): ReadOnlyDatabase {
    if (this.db) return this.db;
    try {
      this.db = openReadOnly(this.file);
      return this.db;
    } catch (error) {
      throw new GatewayError(
        'backend_unavailable',
        `${this.label}: cannot open the SQLite database ${this.file}: ${(error as Error).message}`,
        { cause: error, details: { key: `${this.label}.connection` } },
      );
    }
  }
}

function refused(label: string, error: unknown): GatewayError {
  return new GatewayError(
    'execution_failed',
    `${label}: the database refused the query: ${(error as Error).message}`,
    {
      cause: error,
      details: { sqliteCode: (error as { code?: unknown }).code ?? null },
    },
  );
}

/** A value as SQLite binds it: booleans as 0/1, objects and arrays as JSON text, absent as NULL. */
function toParameter(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return value;
}

function valueType(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'real';
  if (typeof value === 'string') return 'text';
  if (value instanceof Uint8Array) return 'blob';
  return typeof value;
}

/** Blobs as base64 text: a result is JSON. */
function plain(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    out[key] =
      value instanceof Uint8Array
        ? Buffer.from(value).toString('base64')
        : typeof value === 'bigint'
          ? value.toString()
          : value;
  }
  return out;
}
