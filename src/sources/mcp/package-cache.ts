import { spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { Logger } from '../../foundation/ports/logger.js';
import { packageNameOf } from './self-launch.js';

/*
 * Servers launched as `npx -y pkg` start slowly and break in ways that cost users an afternoon:
 * npm 11's `npx` holds a per-package lock that expires only after 60 s, so a gateway that stops
 * `npx` while it installs (a client restart, the end of a one-shot command, a connect timeout)
 * makes every retry wait for the lock (the memory server took 139 s to connect instead of 2 s),
 * and `npx` killed mid-install leaves a cache folder that fails on every start until deleted by
 * hand (`Cannot find package 'zod'`). So the gateway keeps such packages in a cache of its own:
 * installed once per (package, version the config names) with `npm install --prefix`, by an
 * installer process the gateway never kills (detached: it finishes even when the gateway is
 * stopped), under a lock file so that a second gateway waits instead of racing; then the package's
 * bin is started directly with node on every start. An entry that is incomplete or damaged (no
 * completion marker, no package.json or bin, a dependency that does not resolve) is reinstalled.
 */

/** What an `npx -y pkg …` / `npm exec -y pkg -- …` command runs. */
export interface NpxLaunch {
  /** As written: `@scope/pkg@1.2.3`, `pkg`. */
  spec: string;
  name: string;
  /** The version (or range, or tag) the config names; `latest` when none. */
  version: string;
  /** The bin to run (`npx -p pkg bin`); default: the package's bin of its own name, or its only one. */
  bin?: string;
  /** The arguments after the package. */
  args: string[];
}

/** Options of `npx` / `npm exec` that change nothing about what runs. */
const HARMLESS_OPTIONS: ReadonlySet<string> = new Set(['-y', '--yes', '-q', '--quiet', '--silent']);

/**
 * The package an `npx` / `npm exec` command runs, when it is one this cache can take over: `npx`
 * (or `npm exec` / `npm x`) with `-y`/`--yes`/`--quiet` at most, `-p PKG BIN` or `PKG`, then the
 * server's arguments. Anything else (`-c`, several packages, unknown options) runs as written.
 */
export function npxLaunchOf(command: string, args: readonly string[]): NpxLaunch | undefined {
  const name = path
    .basename(command.replaceAll('\\', '/'))
    .toLowerCase()
    .replace(/\.(cmd|exe)$/, '');
  let rest: readonly string[];
  const npmExec = name === 'npm' && (args[0] === 'exec' || args[0] === 'x');
  if (name === 'npx') rest = args;
  else if (npmExec) rest = args.slice(1);
  else return undefined;
  let pkg: string | undefined;
  let i = 0;
  for (; i < rest.length; i++) {
    const arg = rest[i] as string;
    if (HARMLESS_OPTIONS.has(arg)) continue;
    if (arg === '--') {
      i++;
      break;
    }
    if (arg === '-p' || arg === '--package') {
      if (pkg !== undefined) return undefined;
      pkg = rest[++i];
      continue;
    }
    if (arg.startsWith('--package=')) {
      if (pkg !== undefined) return undefined;
      pkg = arg.slice('--package='.length);
      continue;
    }
    if (arg.startsWith('-')) return undefined;
    break;
  }
  const first = rest[i];
  if (first === undefined || first.startsWith('-')) return undefined;
  let after = rest.slice(i + 1);
  // `npm exec pkg -- --flag`: the `--` only ends npm's own options.
  if (npmExec && after[0] === '--') after = after.slice(1);
  const spec = pkg ?? first;
  // A local path or URL is not a registry package: run it as written.
  if (/^[./~]|^[a-z]+:|\\/i.test(spec) && !spec.startsWith('@')) return undefined;
  const packageName = packageNameOf(spec);
  const at = spec.indexOf('@', 1);
  const version = at === -1 ? 'latest' : spec.slice(at + 1) || 'latest';
  return {
    spec,
    name: packageName,
    version,
    ...(pkg === undefined ? {} : { bin: first }),
    args: [...after],
  };
}

/** Options of {@link PackageCache}. */
export interface PackageCacheOptions {
  /** The cache's folder (`<state dir>/packages`). */
  dir: string;
  log: Logger;
  /** The npm executable; default `APERTURE_NPM`, else `npm`. */
  npm?: string;
  /** Extra arguments of `npm install` (`--offline`, `--registry=…`). */
  installArgs?: readonly string[];
  /** How often a waiting gateway looks at the lock. Default 250 ms. */
  pollMs?: number;
}

/** The cache's folder cannot be created (a read-only place): the command is run as written instead. */
export class PackageCacheUnusable extends Error {}

/** A command to start instead of the `npx` one. */
export interface ResolvedLaunch {
  command: string;
  args: string[];
}

/** The file an installer writes when `npm install` succeeded; without it the entry is incomplete. */
const DONE_FILE = '.aperture-installed';

/**
 * The installer, run as `node -e` in a process of its own that the gateway does not wait for or
 * kill: it takes the lock (its pid), installs into a fresh folder, marks the entry complete when
 * npm succeeded, and removes the lock whatever happened.
 */
const INSTALLER = `
const fs = require('node:fs');
const cp = require('node:child_process');
const path = require('node:path');
const [entry, spec, lock, npm, extra] = process.argv.slice(1);
fs.writeFileSync(lock, String(process.pid));
let ok = false;
try {
  fs.rmSync(entry, { recursive: true, force: true });
  fs.mkdirSync(entry, { recursive: true });
  const log = fs.openSync(entry + '.log', 'w');
  const args = ['install', '--prefix', entry, '--no-audit', '--no-fund', '--no-save', ...JSON.parse(extra), spec];
  const run = cp.spawnSync(npm, args, { stdio: ['ignore', log, log], shell: process.platform === 'win32' });
  ok = run.status === 0;
  if (ok) fs.writeFileSync(path.join(entry, '${DONE_FILE}'), JSON.stringify({ spec, at: new Date().toISOString() }));
} finally {
  try { fs.unlinkSync(lock); } catch {}
}
process.exit(ok ? 0 : 1);
`;

/** The cache folder name of a package version: `@scope/pkg@1.2.3` → `@scope+pkg@1.2.3`. */
function entryName(launch: NpxLaunch): string {
  return `${launch.name.replace('/', '+')}@${launch.version}`.replace(/[^A-Za-z0-9._@+-]/g, '_');
}

/**
 * How long a lock whose holder is gone is still honoured. The gateway writes its own pid first and
 * the installer's a moment later (and the installer its own, once Node started): a gateway killed
 * in between leaves an installer running under a dead pid for that moment. Past this, a lock of a
 * dead holder is abandoned.
 */
const LOCK_GRACE_MS = 3_000;

/** Whether the lock (naming `holder`) was left by a process that is gone, for longer than the grace. */
function abandoned(lock: string, holder: number): boolean {
  if (Number.isFinite(holder) && isAlive(holder)) return false;
  try {
    return Date.now() - statSync(lock).mtimeMs > LOCK_GRACE_MS;
  } catch {
    // Gone meanwhile: nobody holds it.
    return true;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The gateway's cache of packages that `npx` would install (see the comment at the top). One per
 * gateway; entries are shared with other gateways using the same state directory.
 */
export class PackageCache {
  /** Specs being installed (or waited for) now: `/readyz` and `doctor` say `installing`. */
  private readonly installing = new Set<string>();

  constructor(private readonly options: PackageCacheOptions) {}

  /** Whether `spec` is being installed now. */
  isInstalling(spec: string): boolean {
    return this.installing.has(spec);
  }

  /**
   * The command that starts `launch` from the cache, installing it first when needed (waiting for
   * another gateway's install instead of racing it). `signal` stops the waiting, never the install.
   *
   * @throws GatewayError `backend_unavailable` when the install failed (with npm's last lines).
   */
  async resolve(launch: NpxLaunch, signal?: AbortSignal): Promise<ResolvedLaunch> {
    const entry = path.join(this.options.dir, entryName(launch));
    const ready = this.check(entry, launch);
    if (ready.ok) return ready.launch;
    if (existsSync(entry)) {
      this.options.log.warn(
        { package: launch.spec, entry, reason: ready.reason },
        'the cached package is incomplete or damaged: reinstalling',
      );
    }
    this.installing.add(launch.spec);
    try {
      for (let round = 0; round < 3; round++) {
        const started = await this.installOrWait(entry, launch, signal);
        const checked = this.check(entry, launch);
        if (checked.ok) return checked.launch;
        if (started) {
          throw new GatewayError(
            'backend_unavailable',
            `installing ${launch.spec} failed: ${checked.reason}${this.logTail(entry)}`,
            { details: { package: launch.spec, log: `${entry}.log` } },
          );
        }
        // Another gateway's install failed or was cut short: install it ourselves.
      }
      throw new GatewayError('backend_unavailable', `installing ${launch.spec} did not complete`);
    } finally {
      this.installing.delete(launch.spec);
    }
  }

  /**
   * Starts the installer when no one holds the lock (true), or waits for the holder (false);
   * either way returns once the lock is gone. A lock whose holder is dead is taken over.
   */
  private async installOrWait(entry: string, launch: NpxLaunch, signal?: AbortSignal): Promise<boolean> {
    try {
      await mkdir(this.options.dir, { recursive: true });
    } catch (error) {
      throw new PackageCacheUnusable(`cannot create ${this.options.dir}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    const lock = `${entry}.lock`;
    let started = false;
    for (;;) {
      signal?.throwIfAborted();
      let fd: number | undefined;
      if (!started) {
        try {
          fd = openSync(lock, 'wx');
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        }
      }
      if (fd !== undefined) {
        writeSync(fd, String(process.pid));
        closeSync(fd);
        this.startInstaller(entry, launch, lock);
        started = true;
      } else {
        const holder = Number.parseInt(readText(lock) ?? '', 10);
        if (!existsSync(lock)) return started;
        if (abandoned(lock, holder)) {
          // The installer died (machine reboot, kill -9 of its group): its lock means nothing.
          try {
            unlinkSync(lock);
          } catch {
            // Someone else took it over first.
          }
          if (started) return started;
          continue;
        }
      }
      if (!started)
        this.options.log.info({ package: launch.spec }, 'waiting for another install of the package');
      while (existsSync(lock)) {
        signal?.throwIfAborted();
        const holder = Number.parseInt(readText(lock) ?? '', 10);
        if (Number.isFinite(holder) && abandoned(lock, holder)) break;
        await sleep(this.options.pollMs ?? 250);
      }
      if (!existsSync(lock)) return started;
    }
  }

  private startInstaller(entry: string, launch: NpxLaunch, lock: string): void {
    const npm = this.options.npm ?? (process.env.APERTURE_NPM || 'npm');
    this.options.log.info({ package: launch.spec, entry }, 'installing the package into the gateway cache');
    const child = spawn(
      process.execPath,
      ['-e', INSTALLER, entry, launch.spec, lock, npm, JSON.stringify(this.options.installArgs ?? [])],
      // A group of its own, not waited for: stopping the gateway (or its process group) does not
      // cut the install short.
      { detached: true, stdio: 'ignore', windowsHide: true },
    );
    child.on('error', (error) => {
      this.options.log.warn({ package: launch.spec, err: error.message }, 'cannot start the installer');
      // Nobody will remove the lock (it holds this gateway's pid): release it, so no one waits forever.
      rmSync(lock, { force: true });
    });
    // The lock names the installer at once (it does so itself as well): a waiter that finds this
    // gateway gone still sees the install alive and waits for it.
    if (child.pid !== undefined) writeFileSync(lock, String(child.pid));
    child.unref();
  }

  /** Whether the entry is complete and usable, and how to start it. */
  private check(
    entry: string,
    launch: NpxLaunch,
  ): { ok: true; launch: ResolvedLaunch } | { ok: false; reason: string } {
    if (!existsSync(path.join(entry, DONE_FILE))) return { ok: false, reason: 'not installed' };
    const manifestFile = path.join(entry, 'node_modules', launch.name, 'package.json');
    let manifest: { bin?: unknown; name?: unknown; dependencies?: unknown };
    try {
      manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as typeof manifest;
    } catch {
      return { ok: false, reason: `${manifestFile} is missing or unreadable` };
    }
    const bin = binOf(manifest, launch);
    if (bin === undefined) return { ok: false, reason: `${launch.name} has no bin to run` };
    const binFile = path.resolve(path.dirname(manifestFile), bin);
    if (!existsSync(binFile)) return { ok: false, reason: `its bin ${binFile} is missing` };
    // From the real path (a linked package resolves its dependencies where it really is, as node does).
    const resolveFrom = createRequire(realpathSync(manifestFile));
    const dependencies =
      typeof manifest.dependencies === 'object' && manifest.dependencies !== null
        ? Object.keys(manifest.dependencies)
        : [];
    for (const dependency of dependencies) {
      try {
        resolveFrom.resolve(`${dependency}/package.json`);
      } catch (error) {
        // Found, but its `exports` do not list package.json: it is there.
        if ((error as NodeJS.ErrnoException).code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') continue;
        return { ok: false, reason: `its dependency ${dependency} does not resolve` };
      }
    }
    // A bin with a shebang other than node's (a shell script) is started as it is.
    const shebang = (readText(binFile) ?? '').split('\n', 1)[0] ?? '';
    const viaNode = !shebang.startsWith('#!') || /\bnode\b/.test(shebang);
    return {
      ok: true,
      launch: viaNode
        ? { command: process.execPath, args: [binFile, ...launch.args] }
        : { command: binFile, args: [...launch.args] },
    };
  }

  private logTail(entry: string): string {
    const text = readText(`${entry}.log`)?.trim();
    if (!text) return '';
    return ` (npm: ${text.split('\n').slice(-3).join(' | ')})`;
  }
}

/** The bin of a package `npx` would run: `-p`'s bin, else the one named like the package, else the only one. */
function binOf(manifest: { bin?: unknown }, launch: NpxLaunch): string | undefined {
  const bin = manifest.bin;
  if (typeof bin === 'string') return bin;
  if (typeof bin !== 'object' || bin === null) return undefined;
  const bins = bin as Record<string, unknown>;
  const own = launch.name.split('/').pop() ?? launch.name;
  const chosen =
    launch.bin !== undefined
      ? bins[launch.bin]
      : (bins[own] ?? (Object.keys(bins).length === 1 ? Object.values(bins)[0] : undefined));
  return typeof chosen === 'string' ? chosen : undefined;
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Removes an entry (tests; a user can delete the folder as well). */
export function removeEntry(dir: string, launch: NpxLaunch): void {
  rmSync(path.join(dir, entryName(launch)), { recursive: true, force: true });
}
