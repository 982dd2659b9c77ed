import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, stopProcess } from './gateway-process.js';

const exec = promisify(execFile);
const require = createRequire(import.meta.url);
const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const MEMORY = require.resolve('@modelcontextprotocol/server-memory/dist/index.js');
/** Never answers initialize: its check lasts until doctor's --timeout. */
const SILENT = ['-e', 'setInterval(() => {}, 60000)'];

let dir: string;
/** Unique to this file's run: the downstream processes it starts carry it in their env. */
let mark: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'aperture-feedback-'));
  mark = path.join(dir, 'mark');
  const env = { MARK: mark };
  await writeFile(
    path.join(dir, 'everything.json'),
    JSON.stringify({
      mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], env } },
    }),
  );
  await writeFile(
    path.join(dir, 'doctor.json'),
    JSON.stringify({
      mcpServers: {
        slow: { command: process.execPath, args: SILENT, env },
        memory: {
          command: process.execPath,
          args: [MEMORY],
          env: { ...env, MEMORY_FILE_PATH: path.join(dir, 'm.jsonl') },
          sandbox: { filesystem: { write: [dir] } },
        },
      },
    }),
  );
});

/** Pids of live processes started by this file (their env carries `mark`). */
async function leftovers(): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc').catch(() => [])) {
    if (!/^\d+$/.test(entry)) continue;
    const environ = await readFile(`/proc/${entry}/environ`, 'utf8').catch(() => '');
    if (environ.includes(`MARK=${mark}`)) pids.push(Number(entry));
  }
  return pids;
}

afterAll(async () => {
  for (const pid of await leftovers()) process.kill(pid, 'SIGKILL');
});

/** Starts the CLI; `waitFor` resolves when a stream shows a pattern, with what it had by then. */
function start(args: string[]) {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => {
    out.stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    out.stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const waitFor = (stream: 'stdout' | 'stderr', pattern: RegExp) =>
    new Promise<{ text: string; running: boolean }>((resolve, reject) => {
      const check = () => {
        if (pattern.test(out[stream])) {
          child[stream].off('data', check);
          resolve({ text: out[stream], running: child.exitCode === null });
        }
      };
      child[stream].on('data', check);
      check();
      void exited.then(() => {
        if (!pattern.test(out[stream])) reject(new Error(`exited without ${pattern}:\n${out.stderr}`));
      });
    });
  return { child, out, exited, waitFor };
}

describe('feedback on long work', { timeout: 60_000 }, () => {
  it('aperture run shows the progress of a long tool on stderr, the result on stdout', async () => {
    const run = start([
      'run',
      'everything:trigger-long-running-operation',
      '--args',
      '{"duration":0.6,"steps":3}',
      '-c',
      'everything.json',
    ]);
    expect(await run.exited).toBe(0);
    const progress = run.out.stderr.split('\n').filter((line) => line.includes('progress'));
    // The SDK client handles notifications a microtask after responses, so a progress sent right
    // before the result (3/3 here) can be dropped by it; the earlier ones always arrive, in order.
    expect(progress.slice(0, 2)).toEqual([
      'aperture: everything:trigger-long-running-operation progress 1/3 (33%)',
      'aperture: everything:trigger-long-running-operation progress 2/3 (67%)',
    ]);
    expect(run.out.stdout).toContain('Long running operation completed');
    expect(run.out.stdout).not.toContain('progress');
  });

  it('Ctrl-C during aperture run stops the tool server and exits 130', async () => {
    const run = start([
      'run',
      'everything:trigger-long-running-operation',
      '--args',
      '{"duration":600,"steps":600}',
      '-c',
      'everything.json',
    ]);
    await run.waitFor('stderr', /progress 1\/600/);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(130);
    expect(await leftovers()).toEqual([]);
  });

  it('doctor prints each server line as its check ends, not all at the end', async () => {
    const doctor = start(['doctor', '--timeout', '8000', '-c', 'doctor.json']);
    // The memory server answers at once; the silent one holds the command until its timeout.
    const seen = await doctor.waitFor('stdout', /^memory\s+stdio\s+\S+\s+ok/m);
    expect(seen.running).toBe(true);
    expect(seen.text).not.toMatch(/^slow /m);
    expect(await doctor.exited).toBe(1);
    expect(doctor.out.stdout).toMatch(/^slow\s+stdio\s+-\s+FAILED/m);
    expect(doctor.out.stdout).toMatch(/2 servers: 1 ok, 1 failed/);
    expect(await leftovers()).toEqual([]);
  });
});

describe('log format', { timeout: 60_000 }, () => {
  async function firstLogLine(args: string[]): Promise<string> {
    const serve = start(['serve', '--stdio', ...args]);
    const { text } = await serve.waitFor('stderr', /serving MCP on stdio/);
    serve.child.stdin.end();
    await serve.exited;
    return text.split('\n').find((line) => line.includes('serving MCP on stdio')) as string;
  }

  it('--log-format json writes JSON lines; pretty writes one readable line per entry', async () => {
    const json = JSON.parse(await firstLogLine(['--log-format', 'json']));
    expect(json).toMatchObject({ level: 30, msg: 'serving MCP on stdio' });

    const pretty = await firstLogLine(['--log-format', 'pretty']);
    expect(pretty).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO /);
    expect(pretty).toMatch(/serving MCP on stdio/);
    expect(pretty).toMatch(/tools=\d+/);
    expect(() => JSON.parse(pretty)).toThrow();
  });

  it('defaults to pretty on a terminal, JSON otherwise', async () => {
    // Not a terminal (a pipe): JSON, what log collectors expect.
    expect(JSON.parse(await firstLogLine([])).msg).toBe('serving MCP on stdio');
    // A terminal: `script` (util-linux) gives the command a pseudo-terminal. What it logs: the
    // warning of a working directory where ./.aperture cannot be created.
    const hasScript = await exec('script', ['--version']).then(
      () => true,
      () => false,
    );
    if (!hasScript) return;
    const cwd = await mkdtemp(path.join(tmpdir(), 'aperture-tty-'));
    await writeFile(path.join(cwd, '.aperture'), '');
    // `serve`: one-shot commands keep their state in the per-user directory from the start.
    const command = `cd ${cwd} && XDG_STATE_HOME=${cwd}/xdg ${process.execPath} ${CLI} serve --stdio < /dev/null`;
    const { stdout } = await exec('script', ['-qec', command, '/dev/null']);
    const warning = stdout.split(/\r?\n/).find((line) => line.includes('per-user state directory'));
    expect(warning).toMatch(/^\d\d:\d\d:\d\d\.\d{3} WARN /);
  });

  it('refuses an unknown --log-format as a usage error (exit 2)', async () => {
    const result = await exec(process.execPath, [CLI, 'list', '--log-format', 'xml'], { cwd: dir }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect((result as { code: number }).code).toBe(2);
    expect((result as { stderr: string }).stderr).toContain('--log-format');
  });
});

describe('SIGHUP', { timeout: 60_000 }, () => {
  it('reloads the config and does not end the gateway', async () => {
    const serve = start(['serve', '--stdio', '--log-format', 'json']);
    await serve.waitFor('stderr', /serving MCP on stdio/);
    serve.child.kill('SIGHUP');
    const { running } = await serve.waitFor('stderr', /SIGHUP/);
    expect(running).toBe(true);
    const line = serve.out.stderr.split('\n').find((l) => l.includes('SIGHUP')) as string;
    expect(JSON.parse(line).msg).toMatch(/SIGHUP received: reloading the config/);
    // Still serving: an initialize is answered.
    serve.child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`,
    );
    await serve.waitFor('stdout', /"id":1/);
    await stopProcess(serve.child);
  });
});
