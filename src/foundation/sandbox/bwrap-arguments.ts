import { realpathSync, statSync } from 'node:fs';
import type { SandboxProfile } from './sandbox-profile.js';

/** What runs inside the sandbox. */
export interface SandboxedCommand {
  command: string;
  args: readonly string[];
  /** Its working directory; default the scratch directory. */
  cwd?: string;
}

/** Extras of {@link bwrapArguments}. */
export interface BwrapExtras {
  /** The egress proxy's unix socket, bound into the sandbox at the same path. */
  proxySocket?: string;
  /** Tells whether a path is a directory, a file, or absent (tests; default: the file system). */
  kindOf?: (path: string) => 'dir' | 'file' | undefined;
}

function fileKind(path: string): 'dir' | 'file' | undefined {
  try {
    return statSync(path).isDirectory() ? 'dir' : 'file';
  } catch {
    return undefined;
  }
}

/** `path` and, when it is a link, where it leads: a mask must cover the real place. */
function withRealPath(path: string): string[] {
  try {
    const real = realpathSync(path);
    return real === path ? [path] : [path, real];
  } catch {
    return [path];
  }
}

/**
 * The bubblewrap arguments (before `--` and the command) that confine a process to `profile`:
 *
 * - the whole file system read-only (`--ro-bind / /`), a fresh `/dev` and a `/proc` of its own PID
 *   namespace (no other process's `/proc/<pid>/environ` or memory in reach);
 * - each existing deny path masked: a directory by an empty read-only tmpfs, a file by `/dev/null`;
 * - the granted directories bound writable before the masks (a mask wins: a granted home
 *   directory does not uncover `~/.ssh`), the package cache and the scratch directory after them;
 * - its own PID, IPC, UTS (and cgroup) namespaces; its own network namespace (loopback only)
 *   unless the network is `open`;
 * - `--die-with-parent`: when the gateway dies, even by SIGKILL, the kernel kills the sandbox, and
 *   with it every process in its PID namespace.
 *
 * The environment is not set here: bubblewrap passes on the one it is started with, which the
 * caller builds from nothing (values in arguments would show in `ps`).
 */
export function bwrapArguments(
  profile: SandboxProfile,
  run: SandboxedCommand,
  extras: BwrapExtras = {},
): string[] {
  const kindOf = extras.kindOf ?? fileKind;
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  args.push('--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try', '--die-with-parent');
  if (profile.network.mode !== 'open') args.push('--unshare-net');
  // Granted directories first, so that a mask below covers a credential inside one (an argument
  // naming the home directory must not uncover ~/.ssh).
  for (const path of profile.writable) args.push('--bind', path, path);
  const maskedDirs: string[] = [];
  for (const denied of profile.deny) {
    for (const path of withRealPath(denied)) {
      const kind = kindOf(path);
      if (kind === 'dir') {
        args.push('--tmpfs', path);
        maskedDirs.push(path);
      } else if (kind === 'file') {
        args.push('--ro-bind', '/dev/null', path);
      }
    }
  }
  // Inside the masks again: the package cache (in the state directory) and the scratch directory.
  for (const path of profile.readable ?? []) {
    if (kindOf(path) !== undefined) args.push('--ro-bind', path, path);
  }
  args.push('--bind', profile.scratchDir, profile.scratchDir);
  if (extras.proxySocket !== undefined) args.push('--bind', extras.proxySocket, extras.proxySocket);
  // After the binds: mount points inside a mask were made while it was still writable.
  for (const path of maskedDirs) args.push('--remount-ro', path);
  args.push('--chdir', run.cwd ?? profile.scratchDir);
  return args;
}
