import Database from 'better-sqlite3';
import type { SqliteConnection, SqliteDriver } from './sqlite-connection.js';

/**
 * better-sqlite3 as a SqliteDriver: the state store's first choice. Its native part is loaded by
 * the first `open` (not by importing this module), and fails there when it was compiled for
 * another Node major (`isUnloadableBinding`). `load` gives the constructor; tests make it throw.
 */
export function betterSqliteDriver(load: () => typeof Database = () => Database): SqliteDriver {
  return {
    name: 'better-sqlite3',
    open(file: string): SqliteConnection {
      const Driver = load();
      const db = new Driver(file);
      return {
        get open() {
          return db.open;
        },
        exec: (sql) => void db.exec(sql),
        prepare(sql) {
          const statement = db.prepare(sql);
          return {
            get: (...params) => statement.get(...params),
            all: (...params) => statement.all(...params),
            run: (...params) => void statement.run(...params),
          };
        },
        pragma: (body) => db.pragma(body, { simple: true }),
        transaction: (work) => db.transaction(work)(),
        close: () => db.close(),
      };
    },
  };
}
