import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';

/*
 * Whether this machine can sandbox a process, found once per process: bubblewrap (`bwrap`) must be
 * installed and able to create the namespaces the sandbox uses (a kernel without unprivileged user
 * namespaces, or a container that forbids them, fails the probe). `APERTURE_BWRAP` names another
 * binary (tests point it at a missing one to play a machine without an engine).
 */

/** The engine found, or why there is none. */
export type SandboxEngineStatus =
  | { available: true; engine: 'bwrap'; path: string }
  | { available: false; reason: string };

let probed: SandboxEngineStatus | undefined;
let probedWith: string | undefined;

/** The namespaces every sandbox of ours needs; the probe asks for all of them. */
const PROBE_ARGS = [
  '--ro-bind',
  '/',
  '/',
  '--dev',
  '/dev',
  '--proc',
  '/proc',
  '--unshare-pid',
  '--unshare-net',
  '--die-with-parent',
  '--',
  'true',
];

/**
 * The sandbox engine of this machine (probed once, ~10 ms; the answer is kept). Only Linux has
 * one: elsewhere the reason says so.
 */
export function detectSandboxEngine(): SandboxEngineStatus {
  const path = process.env.APERTURE_BWRAP || 'bwrap';
  if (probed !== undefined && probedWith === path) return probed;
  probedWith = path;
  probed = probe(path);
  return probed;
}

function probe(path: string): SandboxEngineStatus {
  if (process.platform !== 'linux') {
    return {
      available: false,
      reason: `no sandbox engine on ${process.platform} (bubblewrap is Linux only)`,
    };
  }
  const run = spawnSync(path, PROBE_ARGS, {
    encoding: 'utf8',
    timeout: 5000,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (run.error) {
    const missing = (run.error as NodeJS.ErrnoException).code === 'ENOENT';
    return {
      available: false,
      reason: missing
        ? `bubblewrap (${path}) is not installed (Debian/Ubuntu: apt-get install bubblewrap)`
        : `bubblewrap (${path}) cannot run: ${run.error.message}`,
    };
  }
  if (run.status !== 0) {
    const said = (run.stderr ?? '').trim().split('\n').pop() ?? '';
    return {
      available: false,
      reason: `bubblewrap cannot create namespaces here (user namespaces disabled?): ${said || `exit ${run.status}`}`,
    };
  }
  return { available: true, engine: 'bwrap', path: resolveOnPath(path) };
}

/** The absolute path of `command` (the probe found it), so later spawns do not search PATH again. */
function resolveOnPath(command: string): string {
  if (command.includes('/')) return command;
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir === '') continue;
    const candidate = `${dir}/${command}`;
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return command;
}

/** Forgets the probe's answer (tests that change `APERTURE_BWRAP`). */
export function resetSandboxEngine(): void {
  probed = undefined;
  probedWith = undefined;
}
