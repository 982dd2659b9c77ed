import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { signalSandboxMembers } from './sandbox-stop.js';

describe.skipIf(process.platform !== 'linux')('signalSandboxMembers', () => {
  it('signals the members of the group, never its leader', async () => {
    // The leader stands in for bubblewrap: it waits for its two children and exits on its own.
    const leader = spawn('/bin/sh', ['-c', 'sleep 30 & sleep 30 & wait; echo done'], {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    leader.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      leader.once('close', (code, signal) => resolve({ code, signal })),
    );
    const pid = leader.pid as number;
    let signalled = 0;
    // Until both children are up (the shell forks them right away).
    for (let attempt = 0; attempt < 100 && signalled === 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const members = await countMembers(pid);
      if (members === 2) signalled = signalSandboxMembers(pid, 'SIGTERM');
    }
    expect(signalled).toBe(2);
    const { signal } = await ended;
    // The leader was not signalled: it saw its children end and finished its script.
    expect(signal).toBeNull();
    expect(out.trim()).toBe('done');
  });

  it('signals nothing for a group with no members', () => {
    expect(signalSandboxMembers(2 ** 22 + 12_345, 'SIGTERM')).toBe(0);
  });
});

/** The processes of group `pgid` but its leader, as `ps` sees them. */
async function countMembers(pgid: number): Promise<number> {
  const ps = spawn('ps', ['-o', 'pid=', '-g', String(pgid)], { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  ps.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  await new Promise((resolve) => ps.once('close', resolve));
  return out
    .split('\n')
    .map((line) => Number(line.trim()))
    .filter((pid) => pid > 0 && pid !== pgid).length;
}
