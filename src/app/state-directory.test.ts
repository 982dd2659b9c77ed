import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../config/config-schema.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import type { Logger } from '../foundation/ports/logger.js';
import { MemoryStateStore } from '../foundation/ports/memory-state-store.js';
import { betterSqliteDriver } from '../operations/state/better-sqlite-driver.js';
import { SqliteStateStore } from '../operations/state/sqlite-state-store.js';
import { openStateStore, userStateDir } from './state-directory.js';

/** A logger that keeps its warnings. */
function recordingLog(): Logger & { warnings: { obj: object; msg?: string }[] } {
  const warnings: { obj: object; msg?: string }[] = [];
  const log: Logger & { warnings: typeof warnings } = {
    warnings,
    debug: () => {},
    info: () => {},
    warn: (obj: object, msg?: string) => void warnings.push({ obj, ...(msg === undefined ? {} : { msg }) }),
    error: () => {},
    child: () => log,
  };
  return log;
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'aperture-state-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const defaults = DEFAULT_CONFIG.state;

function sqliteDir(store: unknown): string {
  expect(store).toBeInstanceOf(SqliteStateStore);
  const sqlite = store as SqliteStateStore;
  sqlite.close();
  return sqlite.dir;
}

describe('userStateDir', () => {
  it('is $XDG_STATE_HOME/aperture, else ~/.local/state/aperture', () => {
    expect(userStateDir({ XDG_STATE_HOME: '/x/state', HOME: '/home/u' })).toBe('/x/state/aperture');
    expect(userStateDir({ HOME: '/home/u' })).toBe('/home/u/.local/state/aperture');
    // The XDG spec: a relative XDG_STATE_HOME is invalid and ignored.
    expect(userStateDir({ XDG_STATE_HOME: 'rel', HOME: '/home/u' })).toBe('/home/u/.local/state/aperture');
  });
});

describe('openStateStore', () => {
  it('keeps state in ./.aperture of the config directory when it can be created', () => {
    const log = recordingLog();
    const store = openStateStore(defaults, dir, { env: { XDG_STATE_HOME: path.join(dir, 'xdg') }, log });
    expect(sqliteDir(store)).toBe(path.join(dir, '.aperture'));
    expect(log.warnings).toEqual([]);
  });

  it('falls back to the per-user state directory when ./.aperture cannot be created', async () => {
    // What an unwritable working directory does, even to root: `.aperture` is taken by a file.
    await writeFile(path.join(dir, '.aperture'), 'not a directory');
    const log = recordingLog();
    const xdg = path.join(dir, 'xdg');
    const store = openStateStore(defaults, dir, { env: { XDG_STATE_HOME: xdg }, log });
    expect(sqliteDir(store)).toBe(path.join(xdg, 'aperture'));
    expect(existsSync(path.join(xdg, 'aperture', 'state.db'))).toBe(true);
    expect(log.warnings).toHaveLength(1);
    expect(log.warnings[0]?.obj).toMatchObject({ dir: path.join(xdg, 'aperture') });
  });

  it('keeps state in memory, with a warning, when no directory can be created at all', async () => {
    await writeFile(path.join(dir, '.aperture'), '');
    await writeFile(path.join(dir, 'home'), '');
    const log = recordingLog();
    const store = openStateStore(defaults, dir, { env: { HOME: path.join(dir, 'home') }, log });
    expect(store).toBeInstanceOf(MemoryStateStore);
    expect(log.warnings.at(-1)?.msg).toMatch(/in memory/);
  });

  it('uses an explicit directory (--state-dir, APERTURE_STATE_DIR) as it is, and fails when it cannot', async () => {
    const explicit = path.join(dir, 'chosen');
    expect(sqliteDir(openStateStore(defaults, dir, { dir: explicit, env: {}, log: recordingLog() }))).toBe(
      explicit,
    );
    await writeFile(path.join(dir, 'taken'), '');
    const failure = (() => {
      try {
        openStateStore(defaults, dir, { dir: path.join(dir, 'taken'), env: {}, log: recordingLog() });
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    // The user named it: falling back elsewhere would hide their mistake.
    expect(failure).toBeInstanceOf(GatewayError);
    expect((failure as GatewayError).code).toBe('config_invalid');
  });

  it('does not fall back from a state.dir the config sets', async () => {
    await mkdir(path.join(dir, 'conf'));
    await writeFile(path.join(dir, 'conf', 'db'), '');
    expect(() =>
      openStateStore({ ...defaults, dir: 'db' }, path.join(dir, 'conf'), { env: {}, log: recordingLog() }),
    ).toThrow(/cannot open the state store/);
  });

  it('keeps nothing on disk with driver memory, whatever the directories', () => {
    const store = openStateStore({ ...defaults, driver: 'memory' }, dir, {
      dir: '/nonexistent/x',
      env: {},
      log: recordingLog(),
    });
    expect(store).toBeInstanceOf(MemoryStateStore);
  });
});

describe('openStateStore when no SQLite binding loads under this Node', () => {
  const unloadable = betterSqliteDriver(() => {
    throw Object.assign(new Error('was compiled against a different Node.js version'), {
      code: 'ERR_DLOPEN_FAILED',
    });
  });

  it('keeps state in memory, saying why and the fix (not that no directory can be created)', () => {
    const log = recordingLog();
    const store = openStateStore(defaults, dir, { log, drivers: [unloadable] });
    expect(store).toBeInstanceOf(MemoryStateStore);
    const said = JSON.stringify(log.warnings);
    expect(said).toContain('npm rebuild better-sqlite3');
    expect(said).not.toContain('no state directory');
  });
});
