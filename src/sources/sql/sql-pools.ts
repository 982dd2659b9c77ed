import path from 'node:path';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { PostgresConnection } from './postgres-connection.js';
import type { SqlConnection } from './sql-connection.js';
import { SqliteConnection } from './sqlite-connection.js';

/** Which database a connection string names. */
export type SqlTarget = { engine: 'postgres'; url: string } | { engine: 'sqlite'; file: string };

/**
 * Reads a connection string: `postgres://` / `postgresql://`, or `sqlite:<file>` (relative to
 * `baseDir`). Anything else is `config_invalid` naming the key.
 */
export function parseConnection(connection: string, baseDir: string, label: string): SqlTarget {
  const trimmed = connection.trim();
  if (/^postgres(ql)?:\/\//i.test(trimmed)) return { engine: 'postgres', url: trimmed };
  const sqlite = /^sqlite:(?:\/\/)?(.+)$/i.exec(trimmed)?.[1];
  if (sqlite !== undefined && sqlite !== ':memory:') {
    return { engine: 'sqlite', file: path.resolve(baseDir, sqlite) };
  }
  throw new GatewayError(
    'config_invalid',
    `${label}.connection: expected "postgres://…", "postgresql://…" or "sqlite:<file>"`,
    { details: { key: `${label}.connection` } },
  );
}

interface Shared {
  connection: SqlConnection;
  users: number;
}

/**
 * The connections in use, one per connection string, shared by every tool (and every source)
 * that names it, so ten queries on one database hold one pool. Each holder releases its lease
 * when its source stops; the last one closes the pool.
 */
export class SqlPools {
  private readonly shared = new Map<string, Shared>();

  /** A lease on the connection for `target`; `release` it once. */
  lease(
    target: SqlTarget,
    label: string,
    connectTimeoutMs: number,
  ): { connection: SqlConnection; release: () => Promise<void> } {
    const key = target.engine === 'postgres' ? target.url : `sqlite:${target.file}`;
    let entry = this.shared.get(key);
    if (!entry) {
      const connection =
        target.engine === 'postgres'
          ? new PostgresConnection(target.url, label, connectTimeoutMs)
          : new SqliteConnection(target.file, label);
      entry = { connection, users: 0 };
      this.shared.set(key, entry);
    }
    entry.users++;
    const held = entry;
    let released = false;
    return {
      connection: held.connection,
      release: async () => {
        if (released) return;
        released = true;
        held.users--;
        if (held.users === 0 && this.shared.get(key) === held) {
          this.shared.delete(key);
          await held.connection.close();
        }
      },
    };
  }
}

/** The process's pools: sources reloaded or several namespaces on one database share them. */
export const SQL_POOLS = new SqlPools();
