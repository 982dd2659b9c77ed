import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  copyFile,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureServerPath } from '../support/fixture-servers.js';
import { ROOT } from './gateway-process.js';

const exec = promisify(execFile);

/** The pids of live processes whose environment holds `marker` (they descend from our command). */
async function processesMarked(marker: string): Promise<number[]> {
  const found: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const environ = await readFile(`/proc/${name}/environ`, 'latin1');
      if (!environ.includes(marker)) continue;
      // A zombie (exited, not yet reaped) is not running.
      const stat = await readFile(`/proc/${name}/stat`, 'latin1');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      found.push(Number(name));
    } catch {
      // Gone while we looked, or not ours to read.
    }
  }
  return found;
}

/** Runs a command in its own session (no terminal: progress goes to stderr), collecting its output. */
function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  const child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/**
 * The README's first command, `npm install && npm start`, in a fresh copy of the repository: the
 * install's last step (`prepare`, what npm runs after installing the dependencies — simulated here
 * with the dependencies linked, so nothing is downloaded) builds once, with progress; `npm start`
 * does not build again and serves; SIGTERM to it stops the gateway and the gateway's servers.
 */
describe("the README's first command in a fresh clone", () => {
  let clone: string;
  let env: NodeJS.ProcessEnv;
  const marker = `APERTURE_FIRST_COMMAND_${randomUUID().replaceAll('-', '')}`;
  let prepareOutput = '';
  let start: ReturnType<typeof run> | undefined;

  beforeAll(async () => {
    clone = await mkdtemp(path.join(tmpdir(), 'aperture-clone-'));
    // The files a clone has: tracked and new ones, not dist/ or node_modules (ignored).
    const { stdout } = await exec('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: ROOT,
      maxBuffer: 64 * 1024 * 1024,
    });
    for (const file of stdout.split('\0').filter(Boolean)) {
      const from = path.join(ROOT, file);
      const to = path.join(clone, file);
      await mkdir(path.dirname(to), { recursive: true });
      await copyFile(from, to).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error; // deleted in the work tree, still in the index
      });
    }
    await symlink(await realpath(path.join(ROOT, 'node_modules')), path.join(clone, 'node_modules'));
    const config = path.join(clone, 'first-command.yaml');
    await writeFile(
      config,
      JSON.stringify({
        tools: { builtin: true },
        servers: { child: { command: process.execPath, args: [fixtureServerPath('faulty-server.mjs')] } },
      }),
    );
    env = { ...process.env, [marker]: '1', APERTURE_CONFIG: config };
    for (const key of Object.keys(env)) if (key.toLowerCase().startsWith('npm_')) delete env[key];
  }, 60_000);

  afterAll(async () => {
    for (const pid of await processesMarked(marker)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    }
    if (clone) await rm(clone, { recursive: true, force: true });
  });

  it('npm install (its prepare step) builds dist/ once, showing progress', async () => {
    const prepare = run('npm', ['run', 'prepare'], { cwd: clone, env });
    expect(await prepare.exited).toBe(0);
    prepareOutput = prepare.output();
    expect(prepareOutput).toContain('aperture: building dist/ (first build)');
    expect(prepareOutput).toMatch(/aperture: built dist\/ in \d+ s/);
  }, 600_000);

  it('npm start serves without building again; /readyz answers', async () => {
    const started = Date.now();
    start = run('npm', ['start', '--', '--port', '0'], { cwd: clone, env });
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setInterval(() => {
        const match = /listening on (http:\/\/\S+)\/mcp/.exec(start?.output() ?? '');
        if (match?.[1]) {
          clearInterval(timer);
          resolve(match[1]);
        }
      }, 50);
      void start?.exited.then((code) => {
        clearInterval(timer);
        reject(new Error(`npm start exited with ${code}:\n${start?.output()}`));
      });
    });
    let ready = false;
    for (let i = 0; i < 600 && !ready; i++) {
      ready = await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (!ready) await new Promise((r) => setTimeout(r, 100));
    }
    expect(ready).toBe(true);
    console.log(`time from npm start to /readyz: ${Date.now() - started} ms`);
    const output = start.output();
    expect(output).toContain('aperture: dist/ is current');
    // One build in all: the install's; none from npm start.
    expect(`${prepareOutput}${output}`.match(/aperture: building dist\//g)).toHaveLength(1);
  }, 120_000);

  it('SIGTERM to npm start stops the gateway and its servers: no process of it is left', async () => {
    const child = start?.child as ChildProcess;
    // The gateway and its server are running, and carry the marker.
    expect((await processesMarked(marker)).length).toBeGreaterThanOrEqual(2);
    child.kill('SIGTERM');
    await start?.exited;
    let left = await processesMarked(marker);
    for (let i = 0; i < 50 && left.length > 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      left = await processesMarked(marker);
    }
    expect(left).toEqual([]);
  }, 30_000);
});
