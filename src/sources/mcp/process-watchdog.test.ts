import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { processAlive as alive, waitFor } from '../../../test/support/fixture-servers.js';
import { watchProcessGroup } from './process-watchdog.js';

describe.skipIf(process.platform === 'win32')('watchProcessGroup', () => {
  it('kills the whole group once released (what a dead gateway does by closing the pipe)', async () => {
    // A leader that ignores SIGTERM and a member of its group.
    const leader = spawn('/bin/sh', ['-c', 'trap "" TERM; sleep 30 & wait'], {
      detached: true,
      stdio: 'ignore',
    });
    const pid = leader.pid ?? 0;
    const exited = new Promise((resolve) => leader.once('exit', resolve));
    const dog = watchProcessGroup(pid);
    expect(dog).toBeDefined();
    expect(alive(pid)).toBe(true);
    dog?.release();
    await exited;
    // The group's other member went too: nothing answers for the group any more.
    await waitFor('the group to be gone', () => {
      try {
        process.kill(-pid, 0);
        return false;
      } catch {
        return true;
      }
    });
  });
});
