import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../foundation/ports/logger.js';
import { type ProcessExit, StdioProcessTransport } from './stdio-process-transport.js';

function transport(script: string, exits: ProcessExit[]) {
  return new StdioProcessTransport({
    command: process.execPath,
    args: ['-e', script],
    env: {},
    log: silentLogger,
    onExit: (exit) => void exits.push(exit),
  });
}

describe('StdioProcessTransport onExit', () => {
  it('reports the exit code of a process that ends on its own, before onclose', async () => {
    const exits: ProcessExit[] = [];
    const t = transport('process.exit(3)', exits);
    const closed = new Promise<ProcessExit[]>((resolve) => {
      t.onclose = () => resolve([...exits]);
    });
    await t.start();
    expect(await closed).toEqual([{ code: 3, signal: null }]);
  });

  it('reports the signal that ended a process', async () => {
    const exits: ProcessExit[] = [];
    const t = transport('process.kill(process.pid, "SIGKILL")', exits);
    const closed = new Promise<void>((resolve) => {
      t.onclose = () => resolve();
    });
    await t.start();
    await closed;
    expect(exits).toEqual([{ code: null, signal: 'SIGKILL' }]);
  });

  it('reports nothing when the gateway stops the process itself', async () => {
    const exits: ProcessExit[] = [];
    const t = transport('setInterval(() => {}, 1000)', exits);
    await t.start();
    await t.close();
    expect(exits).toEqual([]);
  });
});

describe('StdioProcessTransport onStderr', () => {
  it('gives each stderr line, whole, in order, and nothing of stdout', async () => {
    const lines: string[] = [];
    const t = new StdioProcessTransport({
      command: process.execPath,
      args: [
        '-e',
        'process.stderr.write("first\\nsec"); process.stderr.write("ond\\n"); console.log("not json")',
      ],
      env: {},
      log: silentLogger,
      onStderr: (line) => void lines.push(line),
    });
    const closed = new Promise<void>((resolve) => {
      t.onclose = () => resolve();
    });
    await t.start();
    await closed;
    expect(lines).toEqual(['first', 'second']);
  });
});

describe('StdioProcessTransport stderr logging', () => {
  it('logs stderr at debug while the server runs, and its last lines with the warning about its exit', async () => {
    const entries: { level: string; obj: object; msg?: string | undefined }[] = [];
    const record =
      (level: string) =>
      (obj: object, msg?: string): void =>
        void entries.push({ level, obj, msg });
    const log = {
      debug: record('debug'),
      info: record('info'),
      warn: record('warn'),
      error: record('error'),
      child: () => log,
    };
    const t = new StdioProcessTransport({
      command: process.execPath,
      args: ['-e', 'process.stderr.write("starting\\nfatal: no token\\n"); process.exitCode = 1'],
      env: {},
      log,
    });
    const closed = new Promise<void>((resolve) => {
      t.onclose = () => resolve();
    });
    await t.start();
    await closed;
    expect(entries.filter((e) => e.level === 'info')).toEqual([]);
    expect(entries.filter((e) => e.level === 'debug').map((e) => e.msg)).toEqual([
      'starting',
      'fatal: no token',
    ]);
    expect(entries.filter((e) => e.level === 'warn')).toEqual([
      {
        level: 'warn',
        obj: { code: 1, signal: null, stderr: ['starting', 'fatal: no token'] },
        msg: 'server process exited',
      },
    ]);
  });
});
