import { existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { Logger } from '../../foundation/ports/logger.js';
import type { StateStore, StateValue } from '../../foundation/ports/state-store.js';
import { betterSqliteDriver } from './better-sqlite-driver.js';
import { nodeSqliteDriver } from './node-sqlite-driver.js';
import {
  isUnloadableBinding,
  type SqliteConnection,
  type SqliteDriver,
  type SqliteStatement,
} from './sqlite-connection.js';

/** The database file inside the state directory. */
export const STATE_FILE = 'state.db';

/** Options of {@link SqliteStateStore}. */
export interface SqliteStateStoreOptions {
  /** Told once when a damaged file is moved aside, and once per unreadable row. */
  log?: Logger;
  /** The clock of the `.corrupt-<time>` suffix; tests fix it. */
  now?: () => Date;
  /**
   * The SQLite bindings to try, in order; the next is used only when one cannot load under this
   * Node (`isUnloadableBinding`). Default: better-sqlite3, then `node:sqlite` where Node has it.
   */
  drivers?: readonly SqliteDriver[];
}

type Statements = Record<'get' | 'set' | 'delete' | 'entries' | 'count', SqliteStatement>;

/** The fix for a native module built for another Node, as users are told it. */
export const SQLITE_REBUILD_FIX = 'npm rebuild better-sqlite3';

/** The default bindings: better-sqlite3, then node:sqlite (Node 22.5+). */
export function defaultSqliteDrivers(): SqliteDriver[] {
  const fallback = nodeSqliteDriver();
  return fallback === undefined ? [betterSqliteDriver()] : [betterSqliteDriver(), fallback];
}

/** Raised inside `open` for a file that is there but is not a usable store. */
class DamagedStore extends Error {}

// SQLite result codes that say "this file is not (or no longer) a database we can use". Anything
// else — cannot open, read-only, permission, disk full, I/O — is about the place, not the file,
// and moving the file would not help.
const DAMAGE_CODES = /^SQLITE_(CORRUPT|NOTADB|ERROR|SCHEMA|MISMATCH|FORMAT|RANGE)/;

/**
 * The durable {@link StateStore}: one SQLite file (`<dir>/state.db`, WAL journal) through
 * better-sqlite3. One table keyed by (scope, key); bytes are stored as BLOBs, everything else as
 * JSON text, so a value's type survives the round trip. Statements are prepared once.
 *
 * The store holds caches and learned signals, nothing that cannot be rebuilt, so a damaged file
 * never keeps the gateway from starting: a file that is not a database, fails SQLite's
 * `quick_check`, or a directory in its place is moved aside (`state.db.corrupt-<time>`, kept for
 * inspection), logged once, and a fresh store takes its place. A row whose value cannot be read
 * is skipped (a miss) and logged once.
 *
 * better-sqlite3 is a native module, built for the Node major it was installed with. Under
 * another one (Node upgraded after `npm install`) it does not load: that is logged with the fix
 * (`npm rebuild better-sqlite3`) and the same file is opened through `node:sqlite` (Node 22.5+),
 * so state survives the upgrade. Without `node:sqlite` the store cannot open:
 * {@link SqliteUnavailable}.
 */
export class SqliteStateStore implements StateStore {
  private readonly db: SqliteConnection;
  private readonly statements: Statements;
  private readonly log: Logger | undefined;
  /** Rows already reported as unreadable (`scope\0key`): one line each, not one per read. */
  private readonly reported = new Set<string>();

  /**
   * Opens (creating if needed) the store in `dir`; `config_invalid` when the directory cannot be
   * used (not creatable, not writable). A damaged `state.db` is replaced (see the class comment).
   */
  constructor(
    readonly dir: string,
    options: SqliteStateStoreOptions = {},
  ) {
    this.log = options.log;
    const file = path.resolve(dir, STATE_FILE);
    try {
      mkdirSync(path.dirname(file), { recursive: true });
    } catch (error) {
      throw cannotOpen(file, error);
    }
    const drivers = options.drivers ?? defaultSqliteDrivers();
    const driver = usableDriver(drivers, file, this.log);
    let opened: { db: SqliteConnection; statements: Statements };
    try {
      opened = open(driver, file);
    } catch (error) {
      if (!isDamage(error)) throw cannotOpen(file, error);
      let aside: string;
      try {
        aside = moveAside(file, options.now?.() ?? new Date());
      } catch (renameError) {
        // The place is not ours to change (read-only directory): a problem of the setup.
        throw cannotOpen(file, renameError);
      }
      this.log?.warn(
        { file, movedTo: aside, reason: (error as Error).message },
        'the state store was damaged: moved aside, starting with an empty one (caches and learned signals are rebuilt)',
      );
      try {
        opened = open(driver, file);
      } catch (again) {
        throw cannotOpen(file, again);
      }
    }
    this.db = opened.db;
    this.statements = opened.statements;
    this.driver = driver.name;
  }

  /** The SQLite binding in use: `better-sqlite3`, or `node:sqlite` when that did not load. */
  readonly driver: string;

  get(scope: string, key: string): StateValue | undefined {
    const row = this.use(() => this.statements.get.get(scope, key)) as { value: unknown } | undefined;
    return row ? this.decode(scope, key, row.value) : undefined;
  }

  set(scope: string, key: string, value: StateValue): void {
    this.use(() => this.statements.set.run(scope, key, encode(value)));
  }

  getMany(scope: string, keys: readonly string[]): Map<string, StateValue> {
    const found = new Map<string, StateValue>();
    this.use(() => {
      for (const key of keys) {
        const row = this.statements.get.get(scope, key) as { value: unknown } | undefined;
        const value = row ? this.decode(scope, key, row.value) : undefined;
        if (value !== undefined) found.set(key, value);
      }
    });
    return found;
  }

  setMany(scope: string, entries: readonly (readonly [string, StateValue])[]): void {
    const encoded = entries.map(([key, value]) => [key, encode(value)] as const);
    this.use(() =>
      this.db.transaction(() => {
        for (const [key, value] of encoded) this.statements.set.run(scope, key, value);
      }),
    );
  }

  delete(scope: string, key: string): void {
    this.use(() => this.statements.delete.run(scope, key));
  }

  entries(scope: string): [string, StateValue][] {
    const entries: [string, StateValue][] = [];
    const rows = this.use(() => this.statements.entries.all(scope)) as { key: string; value: unknown }[];
    for (const row of rows) {
      const value = this.decode(scope, row.key, row.value);
      if (value !== undefined) entries.push([row.key, value]);
    }
    return entries;
  }

  count(scope: string): number {
    const row = this.use(() => this.statements.count.get(scope)) as { n: number | bigint } | undefined;
    return Number(row?.n ?? 0);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  /** Runs a database call; a closed store or a failing disk becomes a GatewayError. */
  private use<T>(call: () => T): T {
    if (!this.db.open) throw new GatewayError('internal', 'the state store is closed');
    try {
      return call();
    } catch (error) {
      if (error instanceof GatewayError) throw error;
      throw new GatewayError('internal', `state store: ${(error as Error).message}`, { cause: error });
    }
  }

  /** A stored value, or undefined (logged once) when it cannot be read: one bad row is a miss. */
  private decode(scope: string, key: string, stored: unknown): StateValue | undefined {
    // better-sqlite3 gives BLOBs as Buffers, node:sqlite as Uint8Arrays: a copy either way.
    if (stored instanceof Uint8Array) return new Uint8Array(stored);
    try {
      if (typeof stored !== 'string') throw new Error(`a ${stored === null ? 'null' : typeof stored} value`);
      return JSON.parse(stored) as StateValue;
    } catch (error) {
      const id = `${scope}\0${key}`;
      if (!this.reported.has(id)) {
        this.reported.add(id);
        this.log?.warn(
          { scope, key, reason: (error as Error).message },
          'skipped an unreadable row of the state store',
        );
      }
      return undefined;
    }
  }
}

function encode(value: StateValue): string | Buffer {
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  return JSON.stringify(value);
}

/** Opens and checks the file: a usable database with the state table, or an exception. */
function open(driver: SqliteDriver, file: string): { db: SqliteConnection; statements: Statements } {
  if (existsSync(file) && !statSync(file).isFile()) throw new DamagedStore(`${file} is not a file`);
  const db = driver.open(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    // Every page is read once: damage is found now, not in the middle of a search. Cheap at the
    // sizes this store has (caches and learned signals).
    const check = db.pragma('quick_check');
    if (check !== 'ok') throw new DamagedStore(`quick_check: ${String(check)}`);
    db.exec(
      'CREATE TABLE IF NOT EXISTS state (scope TEXT NOT NULL, key TEXT NOT NULL, value ANY, PRIMARY KEY (scope, key)) STRICT, WITHOUT ROWID',
    );
    const statements: Statements = {
      get: db.prepare('SELECT value FROM state WHERE scope = ? AND key = ?'),
      set: db.prepare('INSERT OR REPLACE INTO state (scope, key, value) VALUES (?, ?, ?)'),
      delete: db.prepare('DELETE FROM state WHERE scope = ? AND key = ?'),
      entries: db.prepare('SELECT key, value FROM state WHERE scope = ? ORDER BY key'),
      count: db.prepare('SELECT count(*) AS n FROM state WHERE scope = ?'),
    };
    return { db, statements };
  } catch (error) {
    db.close();
    throw error;
  }
}

function isDamage(error: unknown): boolean {
  if (error instanceof DamagedStore) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && DAMAGE_CODES.test(code);
}

/** Renames the file (and its WAL and shared-memory files) to `…corrupt-<time>`; returns the new name. */
function moveAside(file: string, now: Date): string {
  const aside = `${file}.corrupt-${now.toISOString().replace(/[:.]/g, '-')}`;
  renameSync(file, aside);
  for (const suffix of ['-wal', '-shm']) {
    // A journal of the damaged file must not be replayed into the new one.
    if (existsSync(file + suffix)) renameSync(file + suffix, aside + suffix);
  }
  return aside;
}

function cannotOpen(file: string, error: unknown): GatewayError {
  return new GatewayError(
    'config_invalid',
    `cannot open the state store at ${file}: ${(error as Error).message}`,
    {
      cause: error,
    },
  );
}

/** No SQLite binding loads under this Node: the state store cannot be opened anywhere. */
export class SqliteUnavailable extends GatewayError {}

/**
 * The first driver that loads under this Node, tried on an in-memory database (which says nothing
 * about the file). A binding that does not load is logged with the fix; when none loads,
 * {@link SqliteUnavailable} says why and how to fix it.
 */
function usableDriver(drivers: readonly SqliteDriver[], file: string, log: Logger | undefined): SqliteDriver {
  const failures: string[] = [];
  for (const driver of drivers) {
    try {
      driver.open(':memory:').close();
    } catch (error) {
      if (!isUnloadableBinding(error)) return driver;
      failures.push(`${driver.name}: ${firstLine(error)}`);
      continue;
    }
    if (failures.length > 0) {
      log?.warn(
        { file, driver: driver.name, unavailable: failures, fix: SQLITE_REBUILD_FIX },
        `better-sqlite3 does not load under Node ${process.version} (installed with another Node?): using ${driver.name} for the state store; run "${SQLITE_REBUILD_FIX}" to use better-sqlite3 again`,
      );
    }
    return driver;
  }
  throw new SqliteUnavailable(
    'internal',
    `cannot open the state store at ${file}: better-sqlite3 does not load under Node ${process.version} (${failures.join('; ')}), and this Node has no node:sqlite (Node 22.5+); run "${SQLITE_REBUILD_FIX}"`,
    { details: { file, fix: SQLITE_REBUILD_FIX } },
  );
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}
