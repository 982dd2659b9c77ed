import { type ChildProcess, spawn } from 'node:child_process';

/**
 * The watchdog's whole program: wait for the end of stdin, then SIGKILL the process group named by
 * `$1`. Its stdin is a pipe whose only writer is the gateway, so the end comes when the gateway
 * closes it or dies, however it dies (`kill -9` included: the kernel closes its descriptors).
 */
const SCRIPT = 'read _ignored; kill -s KILL -- "-$1" 2>/dev/null';

/** A watchdog started by {@link watchProcessGroup}. */
export interface ProcessWatchdog {
  /** Ends the watch: the group is killed (whatever is left of it) and the watchdog exits. */
  release(): void;
}

/**
 * Starts a watchdog that kills process group `pgid` when the gateway goes away.
 *
 * Why: a stdio server runs in a process group of its own so it can be stopped as a whole; a
 * gateway that stops normally does that (SIGTERM, then SIGKILL). A gateway killed with SIGKILL
 * runs no code, and a server that ignores SIGTERM and the end of its stdin would live on,
 * orphaned. The kernel's parent-death signal is Linux-only and needs a native addon; a tiny
 * `/bin/sh` per server watching a pipe works on every POSIX system and costs about a megabyte.
 *
 * The watchdog lives in a process group of its own (a Ctrl-C for the terminal's group does not
 * reach it) and does not keep the gateway's event loop alive. Returns undefined on Windows (no
 * process groups; documented in docs/SECURITY.md) or when `/bin/sh` cannot be started.
 */
export function watchProcessGroup(pgid: number): ProcessWatchdog | undefined {
  if (process.platform === 'win32') return undefined;
  let dog: ChildProcess;
  try {
    dog = spawn('/bin/sh', ['-c', SCRIPT, 'aperture-watchdog', String(pgid)], {
      stdio: ['pipe', 'ignore', 'ignore'],
      detached: true,
    });
  } catch {
    return undefined;
  }
  dog.on('error', () => {});
  dog.stdin?.on('error', () => {});
  dog.unref();
  // The pipe is a handle of its own: unreferenced too, or it would hold the gateway open.
  (dog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      dog.stdin?.end();
    },
  };
}
