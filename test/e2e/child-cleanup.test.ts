import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processAlive as alive, fixtureServerPath, waitFor } from '../support/fixture-servers.js';
import { startHttpGateway } from './gateway-process.js';

/**
 * A gateway killed with SIGKILL cannot stop its servers itself; a server that ignores SIGTERM and
 * the end of its stdin would live on. The watchdog beside each server ends it.
 */
describe.skipIf(process.platform === 'win32')('`kill -9` of the gateway', () => {
  let dir: string;
  let pid = 0;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-orphan-'));
  });
  afterAll(async () => {
    if (pid > 0 && alive(pid)) process.kill(pid, 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  it('takes a server that ignores SIGTERM and stdin EOF with it, within seconds', async () => {
    const pidFile = path.join(dir, 'server.pid');
    await writeFile(
      path.join(dir, 'aperture.yaml'),
      [
        'tools: { builtin: false }',
        'state: { driver: memory }',
        'servers:',
        '  stubborn:',
        `    command: "${process.execPath}"`,
        `    args: ["${fixtureServerPath('stubborn-server.mjs')}"]`,
        `    env: { STUBBORN_PID_FILE: "${pidFile}" }`,
        // It reports its host pid: unconfined (the sandbox's own SIGKILL test is sandbox-hostile.test.ts).
        '    sandbox: off',
      ].join('\n'),
    );
    const gateway = await startHttpGateway(['--config', 'aperture.yaml'], dir);
    try {
      await waitFor('the server to start', () => existsSync(pidFile), 15_000);
      await waitFor('the gateway to be ready', async () => (await fetch(`${gateway.url}/readyz`)).ok, 15_000);
      pid = Number(readFileSync(pidFile, 'utf8'));
      expect(alive(pid)).toBe(true);
      gateway.child.kill('SIGKILL');
      // A safety bound, not a speed claim: the watchdog reacts to the pipe closing at once.
      await waitFor('the server to be gone', () => !alive(pid), 10_000);
      expect(alive(pid)).toBe(false);
    } finally {
      await gateway[Symbol.asyncDispose]();
    }
  });
});
