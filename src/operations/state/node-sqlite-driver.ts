import { createRequire } from 'node:module';
import type { SqliteConnection, SqliteDriver, SqliteStatement } from './sqlite-connection.js';

/*
 * `node:sqlite` (Node 22.5+) as a SqliteDriver: the state store's fallback when better-sqlite3,
 * a native module compiled for the Node it was installed with, does not load under the Node that
 * runs (a Node upgrade after `npm install`). The same file format: a state.db written through
 * better-sqlite3 is read here, and the other way round.
 */

/** The part of `node:sqlite`'s DatabaseSync used here (@types/node 20 does not declare the module). */
interface DatabaseSync {
  exec(sql: string): void;
  prepare(sql: string): {
    get(...params: unknown[]): Record<string, unknown> | undefined;
    all(...params: unknown[]): Record<string, unknown>[];
    run(...params: unknown[]): unknown;
  };
  close(): void;
}

type NodeSqlite = { DatabaseSync: new (file: string) => DatabaseSync };

// SQLite's primary result codes, by number: node:sqlite reports `errcode`, better-sqlite3 the name.
const RESULT_CODES: Record<number, string> = {
  1: 'SQLITE_ERROR',
  11: 'SQLITE_CORRUPT',
  17: 'SQLITE_SCHEMA',
  20: 'SQLITE_MISMATCH',
  24: 'SQLITE_FORMAT',
  25: 'SQLITE_RANGE',
  26: 'SQLITE_NOTADB',
};

/** `node:sqlite`, or undefined when this Node does not have it (Node 20, Node 22 before 22.5). */
export function loadNodeSqlite(): NodeSqlite | undefined {
  try {
    // Through require: a static import would fail to link under a Node without the module.
    return createRequire(import.meta.url)('node:sqlite') as NodeSqlite;
  } catch {
    return undefined;
  }
}

/** An error of node:sqlite with the `code` better-sqlite3 would give (`SQLITE_NOTADB`, …). */
function translated(error: unknown): unknown {
  const errcode = (error as { errcode?: unknown } | null)?.errcode;
  if (typeof errcode !== 'number') return error;
  const code = RESULT_CODES[errcode & 0xff] ?? `SQLITE_${errcode}`;
  return Object.assign(new Error((error as Error).message, { cause: error }), { code });
}

function guarded<T>(call: () => T): T {
  try {
    return call();
  } catch (error) {
    throw translated(error);
  }
}

/** The node:sqlite driver; undefined when this Node has no `node:sqlite`. */
export function nodeSqliteDriver(
  load: () => NodeSqlite | undefined = loadNodeSqlite,
): SqliteDriver | undefined {
  const sqlite = load();
  if (sqlite === undefined) return undefined;
  return {
    name: 'node:sqlite',
    open(file: string): SqliteConnection {
      const db = guarded(() => new sqlite.DatabaseSync(file));
      let open = true;
      const connection: SqliteConnection = {
        get open() {
          return open;
        },
        exec: (sql) => guarded(() => db.exec(sql)),
        prepare(sql): SqliteStatement {
          const statement = guarded(() => db.prepare(sql));
          return {
            get: (...params) => guarded(() => statement.get(...params)),
            all: (...params) => guarded(() => statement.all(...params)),
            run: (...params) => void guarded(() => statement.run(...params)),
          };
        },
        pragma(body) {
          const row = guarded(() => db.prepare(`PRAGMA ${body}`).get());
          return row === undefined ? undefined : Object.values(row)[0];
        },
        transaction(work) {
          connection.exec('BEGIN');
          try {
            work();
            connection.exec('COMMIT');
          } catch (error) {
            connection.exec('ROLLBACK');
            throw error;
          }
        },
        close() {
          if (!open) return;
          open = false;
          db.close();
        },
      };
      return connection;
    },
  };
}
