import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { forEachLine, isBlank } from './each-line.js';

function reader(options: Parameters<typeof forEachLine>[2] = {}) {
  const stream = new PassThrough();
  const lines: string[] = [];
  const stop = forEachLine(stream, (line) => lines.push(line), options);
  return { stream, lines, stop };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('forEachLine', () => {
  it('splits lines across chunks, removes a trailing \\r, and passes a last unterminated line at the end', async () => {
    const { stream, lines } = reader();
    stream.write('one\ntw');
    stream.write('o\r\nthree\n\nfo');
    stream.end('ur');
    await tick();
    expect(lines).toEqual(['one', 'two', 'three', '', 'four']);
  });

  it('keeps a character split between two chunks whole', async () => {
    const { stream, lines } = reader();
    const bytes = Buffer.from('é€\n');
    stream.write(bytes.subarray(0, 1));
    stream.write(bytes.subarray(1, 4));
    stream.write(bytes.subarray(4));
    await tick();
    expect(lines).toEqual(['é€']);
  });

  it('reports an over-long line once, drops the rest of it, and reads the next line', async () => {
    const overlong: string[] = [];
    const { stream, lines } = reader({ maxLineLength: 10, onOverlong: (head) => overlong.push(head) });
    stream.write('short\n0123456789');
    stream.write('abcdef');
    stream.write('ghi\nnext\n');
    await tick();
    expect(overlong).toEqual(['0123456789abcdef']);
    expect(lines).toEqual(['short', 'next']);
  });

  it('reports the tail of an over-long line when its newline arrives, whatever the chunks', async () => {
    const tails: string[] = [];
    const { stream, lines } = reader({
      maxLineLength: 10,
      onOverlong: () => {},
      onOverlongEnd: (tail) => tails.push(tail),
    });
    stream.write('0123456789ab');
    stream.write('x'.repeat(300));
    stream.write('"id":7}\nnext\n');
    stream.write(`${'y'.repeat(250)}"id":8}\n`);
    await tick();
    expect(tails).toEqual([`${'x'.repeat(193)}"id":7}`, `${'y'.repeat(193)}"id":8}`]);
    expect(lines).toEqual(['next']);
  });

  it('without onOverlong, passes the head of an over-long line as a line', async () => {
    const { stream, lines } = reader({ maxLineLength: 4 });
    stream.write('abcdefgh');
    stream.write('ij\nok\n');
    await tick();
    expect(lines).toEqual(['abcdefgh', 'ok']);
  });

  it('stops reading when told to', async () => {
    const { stream, lines, stop } = reader();
    stream.write('a\n');
    await tick();
    stop();
    stream.write('b\n');
    stream.end('c');
    await tick();
    expect(lines).toEqual(['a']);
    expect(stream.listenerCount('end')).toBe(0);
  });
});

describe('isBlank', () => {
  it('is true for whitespace only, and false for a line with anything visible in it', () => {
    for (const line of ['', ' ', '\t', ' \u00a0 ']) expect(isBlank(line)).toBe(true);
    for (const line of ['{}', ' {"a":1}', '\tx', 'x ']) expect(isBlank(line)).toBe(false);
  });
});
