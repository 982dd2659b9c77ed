import { open } from 'node:fs/promises';

/** How much of a file is read per step backwards. */
const CHUNK = 64 * 1024;

/**
 * The last `count` lines of a text file (without their newlines), read backwards from its end so
 * that a long log costs what its tail costs. A missing file has no lines. A last line without its
 * newline (a write cut short) counts as a line.
 */
export async function tailLines(path: string, count: number): Promise<string[]> {
  if (count <= 0) return [];
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  try {
    const { size } = await handle.stat();
    let position = size;
    let buffered = Buffer.alloc(0);
    // One newline more than the lines wanted: the one before the first of them.
    while (position > 0) {
      const length = Math.min(CHUNK, position);
      position -= length;
      const chunk = Buffer.alloc(length);
      await handle.read(chunk, 0, length, position);
      buffered = Buffer.concat([chunk, buffered]);
      if (countNewlines(buffered) > count) break;
    }
    const lines = buffered.toString('utf8').split('\n');
    if (lines.at(-1) === '') lines.pop();
    // Unless the file was read from its start, the first piece is the end of an earlier line.
    if (position > 0) lines.shift();
    return lines.slice(-count);
  } finally {
    await handle.close();
  }
}

function countNewlines(buffer: Buffer): number {
  let n = 0;
  for (let i = buffer.indexOf(10); i !== -1; i = buffer.indexOf(10, i + 1)) n++;
  return n;
}
