import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { failureOf } from '../../../test/support/expect-failure.js';
import type { Logger } from '../../foundation/ports/logger.js';
import { runStateStoreContract } from '../../foundation/ports/state-store.contract.js';
import { betterSqliteDriver } from './better-sqlite-driver.js';
import { SqliteStateStore, SqliteUnavailable } from './sqlite-state-store.js';

const freshDir = () => mkdtempSync(path.join(tmpdir(), 'aperture-state-'));

runStateStoreContract(
  'SqliteStateStore',
  () => new SqliteStateStore(freshDir()),
  (store) => {
    store.close();
    return new SqliteStateStore((store as SqliteStateStore).dir);
  },
);

describe('SqliteStateStore', () => {
  it('creates missing directories', () => {
    const dir = path.join(freshDir(), 'nested', 'deeper');
    const store = new SqliteStateStore(dir);
    store.set('s', 'k', 1);
    expect(store.get('s', 'k')).toBe(1);
    store.close();
  });

  it('refuses a path it cannot use with config_invalid', () => {
    const file = path.join(freshDir(), 'a-file');
    writeFileSync(file, 'not a directory');
    const error = failureOf(() => new SqliteStateStore(path.join(file, 'sub')));
    expect(error.code).toBe('config_invalid');
    expect(error.message).toContain(path.join(file, 'sub'));
  });
});

/** A logger that keeps warnings. */
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

/** A store with a few rows, closed, so its file can be damaged. */
function populated(): string {
  const dir = freshDir();
  const store = new SqliteStateStore(dir);
  store.setMany(
    'failures',
    Array.from(
      { length: 400 },
      (_, i) => [`tool:${i}`, { failures: i, at: 1, padding: 'x'.repeat(200) }] as const,
    ),
  );
  store.close();
  return dir;
}

function asideFiles(dir: string): string[] {
  return readdirSync(dir).filter((name) => name.startsWith('state.db.corrupt-'));
}

describe('SqliteStateStore with a damaged state.db', () => {
  const damages: [string, (dir: string) => void][] = [
    [
      'a file that is not a database',
      (dir) => writeFileSync(path.join(dir, 'state.db'), 'garbage '.repeat(200)),
    ],
    [
      'a database with malformed pages',
      (dir) => {
        const file = path.join(dir, 'state.db');
        const fd = openSync(file, 'r+');
        // Past the header page: the table's b-tree pages.
        writeSync(fd, Buffer.alloc(8192, 0xa5), 0, 8192, 4096);
        closeSync(fd);
      },
    ],
    [
      'a directory in its place',
      (dir) => {
        rmSync(path.join(dir, 'state.db'));
        mkdirSync(path.join(dir, 'state.db', 'inner'), { recursive: true });
      },
    ],
  ];

  it.each(damages)('moves %s aside, logs it once and starts empty', (_kind, damage) => {
    const dir = populated();
    damage(dir);
    const { log, lines } = warnings();
    const store = new SqliteStateStore(dir, { log });
    expect(store.count('failures')).toBe(0);
    store.set('s', 'k', 'works');
    expect(store.get('s', 'k')).toBe('works');
    store.close();
    const aside = asideFiles(dir);
    expect(aside).toHaveLength(1);
    expect(statSync(path.join(dir, 'state.db')).isFile()).toBe(true);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.msg).toMatch(/moved aside/);
    expect(JSON.stringify(lines[0]?.obj)).toContain(aside[0]);
  });

  it('skips a row that is not JSON, logging it, and keeps the others', () => {
    const dir = populated();
    const raw = new Database(path.join(dir, 'state.db'));
    raw.prepare("UPDATE state SET value = 'not json {' WHERE scope = 'failures' AND key = 'tool:7'").run();
    raw.close();
    const { log, lines } = warnings();
    const store = new SqliteStateStore(dir, { log });
    const entries = store.entries('failures');
    expect(entries).toHaveLength(399);
    expect(entries.some(([key]) => key === 'tool:7')).toBe(false);
    expect(store.get('failures', 'tool:7')).toBeUndefined();
    expect(store.getMany('failures', ['tool:7', 'tool:8']).has('tool:8')).toBe(true);
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(lines[0]?.obj)).toContain('tool:7');
    // Logged once per row, not once per read.
    expect(lines).toHaveLength(1);
    expect(asideFiles(dir)).toEqual([]);
    store.close();
  });
});

describe('SqliteStateStore when better-sqlite3 does not load under this Node', () => {
  /** better-sqlite3 as it fails when it was built for another Node major. */
  const unloadable = betterSqliteDriver(() => {
    throw Object.assign(
      new Error(
        "The module 'better_sqlite3.node' was compiled against a different Node.js version using NODE_MODULE_VERSION 127.",
      ),
      { code: 'ERR_DLOPEN_FAILED' },
    );
  });

  it('uses the next binding, logging the fix once', () => {
    const { log, lines } = warnings();
    // The real better-sqlite3 stands in for node:sqlite, which Node 20 does not have.
    const fallback = { ...betterSqliteDriver(), name: 'fallback' };
    const store = new SqliteStateStore(freshDir(), { log, drivers: [unloadable, fallback] });
    expect(store.driver).toBe('fallback');
    store.set('s', 'k', 1);
    expect(store.get('s', 'k')).toBe(1);
    store.close();
    expect(lines).toHaveLength(1);
    expect(lines[0]?.msg).toContain('npm rebuild better-sqlite3');
  });

  it('without a binding that loads, refuses with the fix instead of a misleading reason', () => {
    const error = failureOf(() => new SqliteStateStore(freshDir(), { drivers: [unloadable] }));
    expect(error).toBeInstanceOf(SqliteUnavailable);
    expect(error.message).toContain('better-sqlite3 does not load');
    expect(error.message).toContain('npm rebuild better-sqlite3');
  });
});
