import { randomBytes } from 'node:crypto';
import { accessSync, constants, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { bwrapArguments } from './bwrap-arguments.js';
import { type EgressDecision, type EgressProxy, startEgressProxy } from './egress-proxy.js';
import { parseHostPatterns } from './host-pattern.js';
import { LAUNCHER_SCRIPT, type LauncherSettings } from './sandbox-launcher.js';
import type { SandboxProfile } from './sandbox-profile.js';

/** A process to start in a sandbox. */
export interface SandboxSpawnRequest {
  command: string;
  args: readonly string[];
  /**
   * Its own variables (a server's `env`). Only these and a minimal base (`PATH`, `LANG`, `HOME` and
   * `TMPDIR` = the scratch directory) reach it; nothing of the gateway's environment.
   */
  env: Readonly<Record<string, string>>;
  cwd?: string;
}

/** What to pass to `spawn` (with `env` as the environment, never the gateway's). */
export interface SandboxSpawn {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** Extras of {@link sandboxedSpawnArgs}. */
export interface SandboxSpawnExtras {
  /** The egress proxy's socket (network `allow`): the launcher bridges a loopback port to it. */
  proxySocket?: string;
  /** Values that replace variables of `env` (bound secrets' placeholders). */
  placeholders?: Readonly<Record<string, string>>;
}

/** A command that cannot be found on the host (`code: 'ENOENT'`, as `spawn` would say). */
function notFound(command: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`spawn ${command} ENOENT`);
  error.code = 'ENOENT';
  return error;
}

/** `command` as an absolute path: a path is taken against `cwd`, a name looked for on `searchPath`. */
export function resolveCommand(command: string, searchPath: string, cwd: string): string | undefined {
  const candidates = command.includes('/')
    ? [path.resolve(cwd, command)]
    : searchPath
        .split(':')
        .filter((dir) => dir !== '')
        .map((dir) => path.resolve(cwd, dir, command));
  for (const candidate of candidates) {
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not this one.
    }
  }
  return undefined;
}

/**
 * What to spawn to run `request` confined to `profile` with bubblewrap: the command, its
 * arguments and the (whole) environment. The public entry for anything that runs a command in a
 * sandbox (stdio servers, code mode's processes, command tools). With network `allow`, or limits,
 * the launcher (`sandbox-launcher.ts`) runs in front of the command; network `allow` also needs
 * `proxySocket` from a running egress proxy ({@link launchSandboxed} does both).
 *
 * @throws an `ENOENT` error (as `spawn` would) when the command is not found on the host.
 */
export function sandboxedSpawnArgs(
  profile: SandboxProfile,
  request: SandboxSpawnRequest,
  extras: SandboxSpawnExtras = {},
): SandboxSpawn {
  const searchPath = request.env.PATH ?? process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin';
  const cwd = request.cwd ?? profile.scratchDir;
  const command = resolveCommand(request.command, searchPath, cwd);
  if (command === undefined) throw notFound(request.command);
  const env: Record<string, string> = {
    PATH: searchPath,
    LANG: process.env.LANG ?? 'C.UTF-8',
    HOME: profile.scratchDir,
    TMPDIR: profile.scratchDir,
    ...request.env,
    ...extras.placeholders,
  };
  let writable = profile.writable;
  // `npx pkg` run as written (not from the gateway's package cache) fetches into npm's cache.
  if (/^(npx|npm)$/.test(path.basename(command))) {
    const npmCache = process.env.npm_config_cache ?? path.join(homedir(), '.npm');
    if (isDirectory(npmCache)) {
      writable = [...writable, npmCache];
      env.npm_config_cache = npmCache;
    }
  }
  const confined = { ...profile, writable };
  const needsLauncher = profile.network.mode === 'allow' || hasLimits(profile);
  const inner: string[] = needsLauncher
    ? [
        process.execPath,
        '-e',
        LAUNCHER_SCRIPT,
        JSON.stringify(launcherSettings(profile, command, request, extras)),
      ]
    : [command, ...request.args];
  const args = [
    ...bwrapArguments(
      confined,
      { command, args: request.args, cwd },
      {
        ...(extras.proxySocket === undefined ? {} : { proxySocket: extras.proxySocket }),
      },
    ),
    '--',
    ...inner,
  ];
  return { command: profile.bwrap, args, env };
}

function launcherSettings(
  profile: SandboxProfile,
  command: string,
  request: SandboxSpawnRequest,
  extras: SandboxSpawnExtras,
): LauncherSettings {
  return {
    command,
    args: [...request.args],
    ...(profile.network.mode === 'allow' && extras.proxySocket !== undefined
      ? { proxySocket: extras.proxySocket }
      : {}),
    ...(hasLimits(profile) && profile.limits ? { limits: profile.limits } : {}),
  };
}

function hasLimits(profile: SandboxProfile): boolean {
  const limits = profile.limits;
  return limits !== undefined && Object.values(limits).some((value) => value !== undefined);
}

function isDirectory(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
}

/**
 * `profile` with its scratch directory created; where it cannot be (a read-only state directory),
 * one of the same name under the system's temporary folder instead.
 */
function withScratchDir(profile: SandboxProfile): SandboxProfile {
  try {
    mkdirSync(profile.scratchDir, { recursive: true, mode: 0o700 });
    return profile;
  } catch {
    const scratchDir = path.join(
      tmpdir(),
      `aperture-sandbox-${process.getuid?.() ?? 'user'}`,
      path.basename(profile.scratchDir),
    );
    mkdirSync(scratchDir, { recursive: true, mode: 0o700 });
    return { ...profile, scratchDir };
  }
}

/** A sandboxed process ready to spawn, and what to release when it has ended. */
export interface SandboxedLaunch extends SandboxSpawn {
  /** Stops its egress proxy (if any) and removes the proxy's socket. */
  close(): Promise<void>;
}

/** Options of {@link launchSandboxed}. */
export interface LaunchSandboxedOptions {
  /** Told of each egress decision of its proxy (log, audit, count). */
  onEgress?: (decision: EgressDecision) => void;
}

/**
 * Prepares `request` to run confined to `profile`: creates the scratch directory, starts the
 * egress proxy when the network is an allow list (bound secrets get their placeholders), and
 * returns what to spawn. Call `close` once the process has ended.
 */
export async function launchSandboxed(
  profile: SandboxProfile,
  request: SandboxSpawnRequest,
  options: LaunchSandboxedOptions = {},
): Promise<SandboxedLaunch> {
  profile = withScratchDir(profile);
  if (profile.network.mode !== 'allow') {
    return { ...sandboxedSpawnArgs(profile, request), close: async () => {} };
  }
  const secrets = Object.entries(profile.secrets ?? {}).flatMap(([name, hosts]) => {
    const value = request.env[name];
    if (value === undefined) return [];
    const placeholder = `aperture-sandbox-secret-${name}-${randomBytes(12).toString('hex')}`;
    return [{ name, placeholder, value, hosts: parseHostPatterns(hosts) }];
  });
  // A folder of the gateway's own (not the scratch one the process may write to): the socket.
  const socketDir = mkdtempSync(path.join(tmpdir(), 'aperture-egress-'));
  const socketPath = path.join(socketDir, 'proxy.sock');
  let proxy: EgressProxy;
  try {
    proxy = await startEgressProxy({
      socketPath,
      allow: parseHostPatterns(profile.network.allow),
      secrets,
      onDecision: (decision) => options.onEgress?.(decision),
    });
  } catch (error) {
    rmSync(socketDir, { recursive: true, force: true });
    throw error;
  }
  const close = async (): Promise<void> => {
    await proxy.close();
    rmSync(socketDir, { recursive: true, force: true });
  };
  try {
    const placeholders = Object.fromEntries(secrets.map((secret) => [secret.name, secret.placeholder]));
    return { ...sandboxedSpawnArgs(profile, request, { proxySocket: socketPath, placeholders }), close };
  } catch (error) {
    await close();
    throw error;
  }
}
