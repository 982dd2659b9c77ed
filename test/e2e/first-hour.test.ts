import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, FIXTURE_CONFIG, ROOT } from './gateway-process.js';

const exec = promisify(execFile);

/** Runs the built CLI; resolves with exit code and both streams, never throws on non-zero. */
async function aperture(args: string[], cwd = ROOT, env: NodeJS.ProcessEnv = process.env) {
  try {
    const { stdout, stderr } = await exec(process.execPath, [CLI, ...args], { cwd, env, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number | string; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** What a new user met in their first hour, answered by the CLI itself. */
describe('the first hour', () => {
  let dir: string;
  let config: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-first-hour-'));
    config = path.join(dir, 'aperture.yaml');
    await writeFile(
      path.join(dir, 'ping.mjs'),
      "export const ping = { name: 'ping', description: 'Answers pong.', inputSchema: { type: 'object' }, handler: () => 'pong' };\n",
    );
    await writeFile(
      config,
      [
        'tools: { builtin: true, modules: ["./ping.mjs"] }',
        'servers:',
        `  stdio: { command: "${process.execPath}", args: ["-e", "setInterval(() => {}, 1000)"], enabled: false }`,
      ].join('\n'),
    );
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('list --namespace with no such namespace says so, names the nearest, exits 2', async () => {
    const result = await aperture(['--config', FIXTURE_CONFIG, 'list', '--namespace', 'fixtur']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^aperture: invalid_request: No namespace "fixtur" exists; the nearest are "fixture"/,
    );
  });

  it('run with a bare tool name suggests its full id (module tools land in "local")', async () => {
    const result = await aperture(['--config', config, 'run', 'ping']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('did you mean "local:ping"?');
    expect((await aperture(['--config', config, 'run', 'local:ping'])).stdout).toBe('pong\n');
  });

  it('one-shot commands start only the servers they need, and leave no ./.aperture behind', async () => {
    const work = path.join(dir, 'anywhere');
    await mkdir(work, { recursive: true });
    const marker = path.join(dir, 'started');
    const starting = `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x'); setInterval(() => {}, 1000)`;
    const scoped = path.join(dir, 'scoped.yaml');
    await writeFile(
      scoped,
      JSON.stringify({
        // It writes its marker outside its scratch directory: granted (the sandbox is on by default).
        servers: {
          slow: {
            command: process.execPath,
            args: ['-e', starting],
            sandbox: { filesystem: { write: [dir] } },
          },
        },
        startup: { waitMs: 1000 },
      }),
    );
    const { APERTURE_STATE_DIR: _chosen, ...inherited } = process.env;
    const env = { ...inherited, XDG_STATE_HOME: path.join(dir, 'xdg') };
    const run = await aperture(['--config', scoped, 'run', 'time:now'], work, env);
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(path.join(work, '.aperture'))).toBe(false);
    expect(existsSync(path.join(dir, '.aperture'))).toBe(false);
    expect(existsSync(path.join(dir, 'xdg', 'aperture', 'state.db'))).toBe(true);
    // No namespace named: every server starts, as before.
    const list = await aperture(['--config', scoped, 'list'], work, env);
    expect(list.code, list.stderr).toBe(0);
    expect(existsSync(marker)).toBe(true);
  });

  it('login --status with no OAuth server says so and exits 0; login of a stdio server says it has no OAuth', async () => {
    const status = await aperture(['--config', config, 'login', '--status']);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('No server in the config uses OAuth');
    const login = await aperture(['--config', config, 'login', 'stdio', '--no-open']);
    expect(login.code).toBe(2);
    expect(login.stderr).toContain('server "stdio" does not use OAuth: it is a stdio server');
  });
});
