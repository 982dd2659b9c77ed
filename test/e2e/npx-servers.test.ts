import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, ROOT, startHttpGateway } from './gateway-process.js';

/*
 * Servers written as `npx -y pkg`: installed once into the gateway's package cache and started
 * from it. Nothing is downloaded: test/fixtures/fake-npm.mjs stands in for npm (APERTURE_NPM)
 * and "installs" the package from the project's node_modules.
 */

const exec = promisify(execFile);
const FAKE_NPM = path.join(ROOT, 'test/fixtures/fake-npm.mjs');
const EVERYTHING = '@modelcontextprotocol/server-everything';

let dir: string;
let config: string;
let stateDir: string;
let installs: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'aperture-npx-'));
  config = path.join(dir, 'aperture.json');
  stateDir = path.join(dir, 'state');
  installs = path.join(dir, 'installs.txt');
  await writeFile(
    config,
    JSON.stringify({
      mcpServers: { everything: { command: 'npx', args: ['-y', EVERYTHING] } },
      exposure: 'flat',
    }),
  );
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? dir,
    APERTURE_NPM: FAKE_NPM,
    APERTURE_STATE_DIR: stateDir,
    FAKE_NPM_COUNT: installs,
    ...extra,
  };
}

const installCount = () =>
  existsSync(installs) ? readFileSync(installs, 'utf8').trim().split('\n').length : 0;

/** One stdio client session: its first tools/list, then closed (a client restart). */
async function firstToolList(): Promise<string[]> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'serve', '--stdio', '--config', config],
    env: env(),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'npx-test', version: '1.0.0' });
  await client.connect(transport).catch((error: Error) => {
    throw new Error(`${error.message}\n${stderr}`);
  });
  try {
    return (await client.listTools()).tools.map((tool) => tool.name);
  } finally {
    await client.close().catch(() => {});
  }
}

describe.skipIf(process.platform === 'win32')('npx servers', { timeout: 120_000 }, () => {
  it('ten client restarts in a row each see every tool in the first tools/list; installed once', async () => {
    const counts: number[] = [];
    let first: string[] | undefined;
    for (let i = 0; i < 10; i++) {
      const names = await firstToolList();
      first ??= names;
      counts.push(names.filter((name) => name.startsWith('everything__')).length);
      expect(names).toEqual(first);
    }
    expect(counts[0]).toBeGreaterThan(3);
    expect(new Set(counts).size).toBe(1);
    expect(installCount()).toBe(1);
  });

  it('a gateway killed during the first install does not break the next start', async () => {
    const gateway = spawn(process.execPath, [CLI, 'serve', '--stdio', '--config', config], {
      env: env({ FAKE_NPM_DELAY_MS: '2500' }),
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    const packages = path.join(stateDir, 'packages');
    const locked = async () =>
      existsSync(packages) && (await readdir(packages)).some((name) => name.endsWith('.lock'));
    for (let i = 0; i < 200 && !(await locked()); i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await locked()).toBe(true);
    gateway.kill('SIGKILL');
    const names = await firstToolList();
    expect(names.filter((name) => name.startsWith('everything__')).length).toBeGreaterThan(3);
    expect(installCount()).toBe(1);
  });

  it('/readyz and doctor say installing while the first install runs', async () => {
    // Slow enough for doctor's deadline to pass while it installs.
    Object.assign(process.env, env({ FAKE_NPM_DELAY_MS: '4000' }));
    try {
      await using gateway = await startHttpGateway(['--config', config], dir);
      let installing: unknown;
      for (let i = 0; i < 60 && installing === undefined; i++) {
        const body = (await (await fetch(`${gateway.url}/readyz`)).json()) as {
          sources?: { id: string; installing?: string }[];
        };
        installing = body.sources?.find((source) => source.id === 'mcp:everything')?.installing;
        if (installing === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(installing).toBe(EVERYTHING);
    } finally {
      for (const key of ['APERTURE_NPM', 'APERTURE_STATE_DIR', 'FAKE_NPM_COUNT', 'FAKE_NPM_DELAY_MS'])
        delete process.env[key];
    }
    // A second install (another state directory) that doctor's 1 s deadline does not wait for.
    const doctorEnv = env({ FAKE_NPM_DELAY_MS: '4000', APERTURE_STATE_DIR: path.join(dir, 'doctor-state') });
    const run = (args: string[]) =>
      exec(process.execPath, [CLI, 'doctor', '--config', config, '--json', ...args], {
        env: doctorEnv,
        cwd: dir,
      }).then(
        (done) => done.stdout,
        (error: { stdout: string }) => error.stdout,
      );
    const first = JSON.parse(await run(['--timeout', '1000'])) as {
      servers: { state: string; error: { message: string } | null }[];
    };
    expect(first.servers[0]?.state).toBe('installing');
    expect(first.servers[0]?.error?.message).toContain(`still installing ${EVERYTHING}`);
    // The install went on without doctor: a later doctor finds the server.
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const second = JSON.parse(await run([])) as { servers: { state: string; tools: number }[] };
    expect(second.servers[0]?.state).toBe('ok');
  });
});
