import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, startHttpGateway } from './gateway-process.js';

const exec = promisify(execFile);

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'aperture-self-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** How many running processes have `marker` on their command line. */
async function processesNaming(marker: string): Promise<number> {
  const { stdout } = await exec('ps', ['-eo', 'args']);
  return stdout.split('\n').filter((line) => line.includes(marker) && !line.startsWith('ps ')).length;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(process.platform === 'win32')('a config that names the gateway itself', () => {
  it('is refused at load, naming the server, and starts nothing', async () => {
    const file = path.join(dir, 'aperture.yaml');
    await writeFile(
      file,
      JSON.stringify({
        servers: { me: { command: process.execPath, args: [CLI, 'serve', '--stdio', '--config', file] } },
      }),
    );
    const run = await exec(process.execPath, [CLI, 'list', '--config', file], { cwd: dir }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('config_invalid');
    expect(run.stderr).toContain('servers.me.command');
    expect(run.stderr).toContain('would start this Aperture gateway itself');
    expect(await processesNaming(file)).toBe(0);
  });

  it('started through a wrapper script the check cannot see, the copy refuses and the process count stays flat', async () => {
    const file = path.join(dir, 'aperture.yaml');
    const wrapper = path.join(dir, 'wrapper.sh');
    await writeFile(wrapper, `exec "${process.execPath}" "${CLI}" serve --stdio --config "${file}"\n`);
    // Unsandboxed: processes are counted by command line, and bubblewrap's name the config file
    // it masks.
    await writeFile(
      file,
      JSON.stringify({ servers: { loop: { command: 'sh', args: [wrapper], sandbox: 'off' } } }),
    );
    await using gateway = await startHttpGateway(['--config', file], dir);
    const counts: number[] = [];
    for (let i = 0; i < 8; i++) {
      await sleep(500);
      counts.push(await processesNaming(file));
    }
    // The gateway itself, and at most one copy starting up (and refusing) at a time.
    expect(Math.max(...counts), counts.join(',')).toBeLessThanOrEqual(3);
    expect(gateway.stderr()).toContain('refusing to start');
  }, 20_000);
});
