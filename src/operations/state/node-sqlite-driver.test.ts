import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Logger } from '../../foundation/ports/logger.js';
import { runStateStoreContract } from '../../foundation/ports/state-store.contract.js';
import { betterSqliteDriver } from './better-sqlite-driver.js';
import { nodeSqliteDriver } from './node-sqlite-driver.js';
import { SqliteStateStore } from './sqlite-state-store.js';

/*
 * The state store on node:sqlite, the fallback when better-sqlite3 does not load. Node 20 has no
 * node:sqlite, so these run under Node 22 (`npm test` runs this file with the Node 22 binary of
 * the `node` dev dependency; test/build/node22.test.ts) and are skipped under Node 20.
 */

const freshDir = () => mkdtempSync(path.join(tmpdir(), 'aperture-node-sqlite-'));
const driver = nodeSqliteDriver();

/** better-sqlite3 as it fails under a Node it was not built for. */
const unloadable = betterSqliteDriver(() => {
  throw Object.assign(
    new Error(
      "The module 'better_sqlite3.node' was compiled against a different Node.js version using NODE_MODULE_VERSION 115.",
    ),
    { code: 'ERR_DLOPEN_FAILED' },
  );
});

function warnings(): { log: Logger; lines: { obj: object; msg: string | undefined }[] } {
  const lines: { obj: object; msg: string | undefined }[] = [];
  const log: Logger = {
    debug: () => {},
    info: () => {},
    warn: (obj, msg) => void lines.push({ obj, msg }),
    error: (obj, msg) => void lines.push({ obj, msg }),
    child: () => log,
  };
  return { log, lines };
}

describe.skipIf(driver === undefined)('SqliteStateStore on node:sqlite', () => {
  const drivers = driver ? [driver] : [];
  runStateStoreContract(
    'SqliteStateStore (node:sqlite)',
    () => new SqliteStateStore(freshDir(), { drivers }),
    (store) => {
      store.close();
      return new SqliteStateStore((store as SqliteStateStore).dir, { drivers });
    },
  );

  it('is what the store falls back to when better-sqlite3 does not load, saying so with the fix', () => {
    const dir = freshDir();
    const { log, lines } = warnings();
    const store = new SqliteStateStore(dir, { log, drivers: [unloadable, ...drivers] });
    expect(store.driver).toBe('node:sqlite');
    store.set('s', 'k', { kept: true });
    store.close();
    expect(lines).toHaveLength(1);
    expect(lines[0]?.msg).toContain('npm rebuild better-sqlite3');
    const again = new SqliteStateStore(dir, { drivers });
    expect(again.get('s', 'k')).toEqual({ kept: true });
    again.close();
  });

  it('moves a file that is not a database aside, as the better-sqlite3 store does', () => {
    const dir = freshDir();
    writeFileSync(path.join(dir, 'state.db'), 'garbage '.repeat(200));
    const { log, lines } = warnings();
    const store = new SqliteStateStore(dir, { log, drivers });
    expect(store.count('any')).toBe(0);
    store.close();
    expect(lines[0]?.msg).toMatch(/moved aside/);
  });
});
