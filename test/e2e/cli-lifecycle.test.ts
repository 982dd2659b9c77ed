import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from './gateway-process.js';

const require = createRequire(import.meta.url);
/** The real npm memory server, started by path so that no test depends on the network. */
const MEMORY_SERVER = require.resolve('@modelcontextprotocol/server-memory/dist/index.js');

/** A safety bound only: before the fix these commands never exited at all. */
const EXIT_BOUND_MS = 30_000;

interface Outcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** True when the command was still running at the bound and had to be killed. */
  hung: boolean;
}

/** Runs the built CLI; kills it (and says so) if it has not exited within the bound. */
function aperture(args: string[], options: { cwd: string; stdoutLimit?: number }): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let hung = false;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      // `| head -c N`: the reader goes away after N bytes, the writer gets EPIPE.
      if (options.stdoutLimit !== undefined && stdout.length >= options.stdoutLimit) child.stdout.destroy();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => {
      hung = true;
      child.kill('SIGKILL');
    }, EXIT_BOUND_MS);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, hung });
    });
  });
}

/**
 * The pids of processes whose environment mentions `needle`: the memory servers of this file are
 * the only processes given its unique MEMORY_FILE_PATH (Linux /proc; elsewhere none are found).
 */
async function processesMentioning(needle: string): Promise<number[]> {
  const pids: number[] = [];
  const entries = await readdir('/proc').catch(() => []);
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const environ = await readFile(`/proc/${entry}/environ`, 'utf8');
      if (environ.includes(needle)) pids.push(Number(entry));
    } catch {
      // The process ended while we looked, or is not ours to read.
    }
  }
  return pids;
}

let dir: string;
let memoryFile: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'aperture-lifecycle-'));
  // A file name unique to this run, so leftover servers are found by it alone.
  memoryFile = path.join(dir, 'memory-graph.jsonl');
  await writeFile(
    path.join(dir, 'mem.json'),
    JSON.stringify({
      mcpServers: {
        memory: {
          command: process.execPath,
          args: [MEMORY_SERVER],
          env: { MEMORY_FILE_PATH: memoryFile },
          sandbox: { filesystem: { write: [dir] } },
        },
      },
    }),
  );
});

afterAll(async () => {
  // Whatever a failed run left behind is not left on the machine.
  for (const pid of await processesMentioning(memoryFile)) process.kill(pid, 'SIGKILL');
});

function expectExitedCleanly(outcome: Outcome, code: number): void {
  expect(outcome.hung, `still running after ${EXIT_BOUND_MS} ms; stderr:\n${outcome.stderr}`).toBe(false);
  expect(outcome.code).toBe(code);
}

async function expectNoServerLeft(): Promise<void> {
  // Stopping the group is asynchronous on the kernel's side: give it a moment (bounded).
  for (let i = 0; i < 50 && (await processesMentioning(memoryFile)).length > 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(await processesMentioning(memoryFile)).toEqual([]);
}

describe('one-shot commands with a downstream MCP server configured stop it and exit', {
  timeout: 120_000,
}, () => {
  it('run: prints the result, sees the downstream tool at once, exits 0', async () => {
    const outcome = await aperture(['run', 'memory:read_graph', '-c', 'mem.json'], { cwd: dir });
    expectExitedCleanly(outcome, 0);
    expect(JSON.parse(outcome.stdout)).toEqual({ entities: [], relations: [] });
    await expectNoServerLeft();
  });

  it('list, search, describe and export exit 0 with the downstream tools in their output', async () => {
    const list = await aperture(['list', '--namespace', 'memory', '-c', 'mem.json'], { cwd: dir });
    expectExitedCleanly(list, 0);
    expect(list.stdout).toContain('memory:create_entities');

    const search = await aperture(
      ['search', 'create entities in the knowledge graph', '--json', '-c', 'mem.json'],
      {
        cwd: dir,
      },
    );
    expectExitedCleanly(search, 0);
    expect(JSON.parse(search.stdout).tools.map((t: { id: string }) => t.id)).toContain(
      'memory:create_entities',
    );

    const describeOut = await aperture(['describe', 'memory:create_entities', '-c', 'mem.json'], {
      cwd: dir,
    });
    expectExitedCleanly(describeOut, 0);
    expect(JSON.parse(describeOut.stdout).tool.id).toBe('memory:create_entities');

    const exported = await aperture(['export', '--format', 'openai', '-c', 'mem.json'], { cwd: dir });
    expectExitedCleanly(exported, 0);
    expect(exported.stdout).toContain('memory__create_entities');
    await expectNoServerLeft();
  });

  it('a failing command stops the server too: exit 2 for the caller mistake, one line on stderr', async () => {
    const unknown = await aperture(['run', 'memory:no_such_tool', '-c', 'mem.json'], { cwd: dir });
    expectExitedCleanly(unknown, 2);
    expect(unknown.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^aperture: tool_not_found: /)]);

    const badArgs = await aperture(
      ['run', 'memory:create_entities', '--args', '{"entities":"nope"}', '-c', 'mem.json'],
      { cwd: dir },
    );
    expectExitedCleanly(badArgs, 2);
    expect(badArgs.stderr).toContain('validation_input');

    const badToolset = await aperture(['export', '--format', 'mcp', '--toolset', 'nope', '-c', 'mem.json'], {
      cwd: dir,
    });
    expectExitedCleanly(badToolset, 2);
    await expectNoServerLeft();
  });

  it('a server still connecting when the command ends is stopped too (startup.waitMs over)', async () => {
    // Never answers initialize: its first try would last 30 s. Found afterwards by its env.
    const silent = {
      command: process.execPath,
      args: ['-e', 'setInterval(() => {}, 60000)'],
      env: { MARK: memoryFile },
    };
    await writeFile(
      path.join(dir, 'slow.json'),
      JSON.stringify({ mcpServers: { silent }, startup: { waitMs: 500 } }),
    );
    const outcome = await aperture(['list', '--json', '-c', 'slow.json'], { cwd: dir });
    expectExitedCleanly(outcome, 0);
    expect(JSON.parse(outcome.stdout).tools.length).toBeGreaterThan(0);
    await expectNoServerLeft();
  });

  it('a reader that goes away early (`| head`) ends the command quietly, server stopped', async () => {
    const outcome = await aperture(['list', '-c', 'mem.json'], { cwd: dir, stdoutLimit: 1 });
    expectExitedCleanly(outcome, 0);
    expect(outcome.stderr).not.toMatch(/EPIPE|Error/);
    await expectNoServerLeft();
  });
});
