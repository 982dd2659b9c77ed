import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { ApertureConfig } from '../config/config-schema.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import type { Logger } from '../foundation/ports/logger.js';
import { MemoryStateStore } from '../foundation/ports/memory-state-store.js';
import type { StateStore } from '../foundation/ports/state-store.js';
import type { SqliteDriver } from '../operations/state/sqlite-connection.js';
import { SqliteStateStore, SqliteUnavailable } from '../operations/state/sqlite-state-store.js';

/** `state.dir` when the config does not set it: `.aperture` beside the config (or in the working directory). */
export const DEFAULT_STATE_DIR = '.aperture';

/** Options of {@link openStateStore}. */
export interface StateStoreOptions {
  /**
   * A directory the user chose for this run (`serve --state-dir`, `APERTURE_STATE_DIR`), absolute:
   * used as it is, and a failure to open it is an error rather than a fallback.
   */
  dir?: string;
  /** For the per-user directory (`XDG_STATE_HOME`, `HOME`); default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  log: Logger;
  /** The SQLite bindings to try (`SqliteStateStoreOptions.drivers`); tests make one fail to load. */
  drivers?: readonly SqliteDriver[];
}

/**
 * The per-user state directory (XDG Base Directory spec): `$XDG_STATE_HOME/aperture`, else
 * `~/.local/state/aperture`. A relative `XDG_STATE_HOME` is invalid per the spec and ignored.
 */
export function userStateDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const xdg = env.XDG_STATE_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, 'aperture');
  return join(env.HOME || homedir(), '.local', 'state', 'aperture');
}

/**
 * The state store of the config's `state` section. Where the SQLite file goes, first match wins:
 * `options.dir`; a `state.dir` the config sets (relative to `baseDir`); `./.aperture` in
 * `baseDir`; and when that cannot be created — a client such as Claude Desktop starts the gateway
 * in `/` — the per-user state directory. When even that fails, state is kept in memory with a
 * warning: losing learned queries across restarts is better than not starting.
 *
 * `state.driver: redis` is opened by `SharedState` (asynchronously, shared by every gateway);
 * a command that opens the store here with it (`eval`, whose replays must not teach the running
 * gateways) keeps its cache in the SQLite file as with `sqlite`.
 *
 * @throws GatewayError `config_invalid` when a directory the user chose cannot be opened.
 */
export function openStateStore(
  state: ApertureConfig['state'],
  baseDir: string,
  options: StateStoreOptions,
): StateStore {
  if (state.driver === 'memory') return new MemoryStateStore();
  // The store tells of a damaged file moved aside and of unreadable rows skipped.
  const sqlite = { log: options.log, ...(options.drivers ? { drivers: options.drivers } : {}) };
  if (options.dir !== undefined) return new SqliteStateStore(options.dir, sqlite);
  const configured = resolve(baseDir, state.dir);
  if (state.dir !== DEFAULT_STATE_DIR) return new SqliteStateStore(configured, sqlite);
  let reason: string;
  try {
    return new SqliteStateStore(configured, sqlite);
  } catch (error) {
    // No SQLite binding loads under this Node: another directory would not help, and saying
    // "no state directory can be created" would send the user after the wrong problem.
    if (error instanceof SqliteUnavailable) {
      options.log.warn({ reason: reasonOf(error) }, 'keeping state in memory: no SQLite binding loads');
      return new MemoryStateStore();
    }
    reason = reasonOf(error);
  }
  const fallback = userStateDir(options.env);
  try {
    const store = new SqliteStateStore(fallback, sqlite);
    options.log.warn(
      { dir: fallback, unusable: configured, reason },
      'cannot keep state in the working directory; using the per-user state directory',
    );
    return store;
  } catch (error) {
    options.log.warn(
      { tried: [configured, fallback], reason: reasonOf(error) },
      'no state directory can be created; keeping state in memory (set APERTURE_STATE_DIR)',
    );
    return new MemoryStateStore();
  }
}

function reasonOf(error: unknown): string {
  return error instanceof GatewayError || error instanceof Error ? error.message : String(error);
}
