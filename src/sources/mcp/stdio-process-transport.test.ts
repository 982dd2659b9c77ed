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
