import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The `bin` script of a reference server package (`server-everything`…), as its package.json declares it. */
export function referenceServerBin(pkg: string): string {
  const dir = fileURLToPath(new URL(`../../node_modules/@modelcontextprotocol/${pkg}`, import.meta.url));
  const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
    bin: string | Record<string, string>;
  };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin)[0];
  if (!bin) throw new Error(`${pkg} declares no bin`);
  return path.join(dir, bin);
}

/** Absolute path of a fixture MCP server under test/fixtures/mcp. */
export function fixtureServerPath(file: string): string {
  return fileURLToPath(new URL(`../fixtures/mcp/${file}`, import.meta.url));
}

/**
 * A `servers` entry that runs the faulty stdio fixture with the given environment. Unsandboxed
 * unless `more` says otherwise: its tests check process supervision through the host pids it
 * reports (a PID namespace gives every start the same pid) and have it write marks anywhere;
 * confinement itself is tested in test/e2e/sandbox-*.test.ts.
 */
export function faultyServer(env: Record<string, string> = {}, more: Record<string, unknown> = {}) {
  return {
    command: process.execPath,
    args: [fixtureServerPath('faulty-server.mjs')],
    env,
    sandbox: 'off',
    ...more,
  };
}

/** Starts the HTTP fixture server; resolves with its base URL once it listens. */
export async function startHttpFixture(
  env: Record<string, string> = {},
): Promise<{ url: string; process: ChildProcess; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [fixtureServerPath('http-server.mjs')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.on('line', (line) => {
      const match = /^listening (http:\/\/\S+)$/.exec(line);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`http fixture exited with ${code}`)));
  });
  return {
    url,
    process: child,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Polls `check` until it returns true or `timeoutMs` passes (then throws naming `what`). */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Whether a process with this pid still exists (signal 0 checks without sending anything). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
