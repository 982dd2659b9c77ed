import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { GatewayError } from '../../foundation/gateway-error.js';
import type { StateStore, StateValue } from '../../foundation/state-store.js';

/** The database file inside the state directory. */
export const STATE_FILE = 'state.db';

/**
 * The durable {@link StateStore}: one SQLite file (`<dir>/state.db`, WAL journal) through
 * better-sqlite3. One table keyed by (scope, key); bytes are stored as BLOBs, everything else as
 * JSON text, so a value's type survives the round trip. Statements are prepared once.
 */
export class SqliteStateStore implements StateStore {
  private readonly db: Database.Database;
  private readonly statements: {
    get: Database.Statement<[string, string], { value: unknown }>;
    set: Database.Statement<[string, string, unknown]>;
    delete: Database.Statement<[string, string]>;
    entries: Database.Statement<[string], { key: string; value: unknown }>;
    count: Database.Statement<[string], { n: number }>;
  };

  /** Opens (creating if needed) the store in `dir`; `config_invalid` when that is impossible. */
  constructor(readonly dir: string) {
    const file = path.resolve(dir, STATE_FILE);
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      this.db = new Database(file);
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
      this.db.exec(
        'CREATE TABLE IF NOT EXISTS state (scope TEXT NOT NULL, key TEXT NOT NULL, value ANY, PRIMARY KEY (scope, key)) STRICT, WITHOUT ROWID',
      );
    } catch (error) {
      throw new GatewayError(
        'config_invalid',
        `cannot open the state store at ${file}: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
    this.statements = {
      get: this.db.prepare('SELECT value FROM state WHERE scope = ? AND key = ?'),
      set: this.db.prepare('INSERT OR REPLACE INTO state (scope, key, value) VALUES (?, ?, ?)'),
      delete: this.db.prepare('DELETE FROM state WHERE scope = ? AND key = ?'),
      entries: this.db.prepare('SELECT key, value FROM state WHERE scope = ? ORDER BY key'),
      count: this.db.prepare('SELECT count(*) AS n FROM state WHERE scope = ?'),
    };
  }

  get(scope: string, key: string): StateValue | undefined {
    const row = this.use(() => this.statements.get.get(scope, key));
    return row ? decode(row.value) : undefined;
  }

  set(scope: string, key: string, value: StateValue): void {
    this.use(() => this.statements.set.run(scope, key, encode(value)));
  }

  getMany(scope: string, keys: readonly string[]): Map<string, StateValue> {
    const found = new Map<string, StateValue>();
    this.use(() => {
      for (const key of keys) {
        const row = this.statements.get.get(scope, key);
        if (row) found.set(key, decode(row.value));
      }
    });
    return found;
  }

  setMany(scope: string, entries: readonly (readonly [string, StateValue])[]): void {
    const encoded = entries.map(([key, value]) => [key, encode(value)] as const);
    this.use(() =>
      this.db.transaction(() => {
        for (const [key, value] of encoded) this.statements.set.run(scope, key, value);
      })(),
    );
  }

  delete(scope: string, key: string): void {
    this.use(() => this.statements.delete.run(scope, key));
  }

  entries(scope: string): [string, StateValue][] {
    return this.use(() => this.statements.entries.all(scope)).map((row) => [row.key, decode(row.value)]);
  }

  count(scope: string): number {
    return this.use(() => this.statements.count.get(scope))?.n ?? 0;
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
}

function encode(value: StateValue): string | Buffer {
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  return JSON.stringify(value);
}

function decode(stored: unknown): StateValue {
  if (Buffer.isBuffer(stored)) return new Uint8Array(stored);
  return JSON.parse(stored as string) as StateValue;
}
