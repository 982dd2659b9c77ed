import { readdirSync, readFileSync } from 'node:fs';

/**
 * Sends `signal` to every process of the group led by `leader` (a bubblewrap process) but the
 * leader itself, and returns how many were signalled (0: none found, or no `/proc` to read).
 *
 * Why: bubblewrap does not pass a signal on to what it runs. SIGTERM to it ends it at once, and
 * with it the sandbox's PID namespace: the kernel SIGKILLs every process inside, so a server never
 * gets to act on what it was told just before (a `notifications/cancelled`, the end of its stdin).
 * The processes inside are still members of the gateway-made group and visible in the host's
 * `/proc`; signalled directly, the server stops as it would unsandboxed, bubblewrap follows once
 * it has ended. The namespace's own init ignores a SIGTERM it has no handler for.
 */
export function signalSandboxMembers(leader: number, signal: NodeJS.Signals): number {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return 0;
  }
  let signalled = 0;
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === leader || processGroupOf(pid) !== leader) continue;
    try {
      process.kill(pid, signal);
      signalled++;
    } catch {
      // Gone between the listing and the signal.
    }
  }
  return signalled;
}

/** The process group of `pid` from `/proc/<pid>/stat` (the field after state and parent), or undefined. */
function processGroupOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (in parentheses) may hold spaces: the fields start after its last ')'.
    const group = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2];
    return group === undefined ? undefined : Number(group);
  } catch {
    return undefined;
  }
}
