import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TurnBuffer } from './turn-buffer.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('TurnBuffer', () => {
  it('writes the lines of one event-loop turn once, after the turn, in order', async () => {
    const writes: string[] = [];
    const buffer = new TurnBuffer({ write: (text: string) => writes.push(text) });
    buffer.write('a\n');
    buffer.write('b\n');
    expect(writes).toEqual([]);
    await nextTurn();
    expect(writes).toEqual(['a\nb\n']);
    buffer.write('c\n');
    await nextTurn();
    expect(writes).toEqual(['a\nb\n', 'c\n']);
  });

  it('writes at once when pino flushes (a fatal line, logger.flush)', () => {
    const writes: string[] = [];
    const buffer = new TurnBuffer({ write: (text: string) => writes.push(text) });
    buffer.write('fatal\n');
    buffer.flushSync();
    expect(writes).toEqual(['fatal\n']);
    let flushed = false;
    buffer.write('more\n');
    buffer.flush(() => (flushed = true));
    expect(writes).toEqual(['fatal\n', 'more\n']);
    expect(flushed).toBe(true);
  });

  it('loses no line when the process exits in the turn that logged it', () => {
    const logger = fileURLToPath(new URL('./create-logger.ts', import.meta.url));
    const script = [
      `const { createLogger } = await import(${JSON.stringify(logger)});`,
      "const log = createLogger({ level: 'info' });",
      "log.info({ n: 1 }, 'before exit');",
      "log.info({ n: 2 }, 'before exit');",
      'process.exit(3);',
    ].join('\n');
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(child.status).toBe(3);
    const lines = child.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { n: number; msg: string });
    expect(lines.map((line) => [line.n, line.msg])).toEqual([
      [1, 'before exit'],
      [2, 'before exit'],
    ]);
  });
});
