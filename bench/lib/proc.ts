/**
 * Process facts from /proc (Linux only): children of a process, CPU time used.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ; 100 on every Linux Node runs on). */
const TICKS_PER_SECOND = 100;

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces and parens). */
function statFields(pid: number | string): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Field 3 (state) is first here: fields[i] is stat field i + 3.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** The pids whose parent is `pid`. */
export function childPids(pid: number | undefined): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (Number(statFields(entry)[1]) === pid) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/**
 * CPU seconds of a process (user + system), with `children: true` also those of its children it
 * has waited for (cutime + cstime: runner processes that have exited).
 */
export function cpuSeconds(pid: number | undefined, { children = false } = {}): number {
  if (pid === undefined) return Number.NaN;
  try {
    const f = statFields(pid);
    // utime, stime, cutime, cstime are stat fields 14–17.
    let ticks = Number(f[11]) + Number(f[12]);
    if (children) ticks += Number(f[13]) + Number(f[14]);
    return ticks / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}
