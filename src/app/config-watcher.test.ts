import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from '../foundation/ports/logger.js';
import { watchConfigFile } from './config-watcher.js';

const log = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Logger;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function dir(): Promise<string> {
  const made = await mkdtemp(path.join(tmpdir(), 'aperture-watch-'));
  cleanups.push(() => rm(made, { recursive: true, force: true }));
  return made;
}

describe('watchConfigFile', () => {
  it('reports an edit in place, and a save that renames a new file over the old one', async () => {
    const base = await dir();
    const file = path.join(base, 'aperture.yaml');
    await writeFile(file, 'servers: {}\n');
    const onChange = vi.fn();
    cleanups.push(watchConfigFile({ file, onChange, settleMs: 10, log }));

    await writeFile(file, 'servers: { a: { command: node } }\n');
    await vi.waitFor(() => expect(onChange).toHaveBeenCalledTimes(1), { timeout: 5000 });

    const temp = path.join(base, '.aperture.yaml.swp');
    await writeFile(temp, 'servers: {}\n');
    await rename(temp, file);
    await vi.waitFor(() => expect(onChange).toHaveBeenCalledTimes(2), { timeout: 5000 });
  });

  it('ignores other files of the directory', async () => {
    const base = await dir();
    const file = path.join(base, 'aperture.yaml');
    await writeFile(file, 'servers: {}\n');
    const onChange = vi.fn();
    // A long settle folds the events of one write into one call, so the count below is exact.
    cleanups.push(watchConfigFile({ file, onChange, settleMs: 500, log }));
    await writeFile(path.join(base, 'notes.txt'), 'hello');
    // A change to the config afterwards is reported, and only that one.
    await writeFile(file, 'servers: { b: { command: node } }\n');
    await vi.waitFor(() => expect(onChange).toHaveBeenCalled(), { timeout: 5000 });
    expect(onChange).toHaveBeenCalledTimes(1);
  });

  it('reports edits to the override files the config names, and follows a changed list', async () => {
    const base = await dir();
    const other = await dir();
    const file = path.join(base, 'aperture.yaml');
    const overrides = path.join(other, 'overrides.yaml');
    await writeFile(file, 'overrides: []\n');
    await writeFile(overrides, '{}\n');
    let related: string[] = [overrides];
    const onChange = vi.fn(async () => {});
    cleanups.push(watchConfigFile({ file, related: () => related, onChange, settleMs: 10, log }));

    await writeFile(overrides, '"ns:tool": { description: x }\n');
    await vi.waitFor(() => expect(onChange).toHaveBeenCalledTimes(1), { timeout: 5000 });
    // A file added to an overrides folder is part of the config too.
    await writeFile(path.join(other, 'more.json'), '{}');
    await vi.waitFor(() => expect(onChange).toHaveBeenCalledTimes(2), { timeout: 5000 });

    // The config stops naming that folder: after the next change it is no longer watched.
    related = [];
    await writeFile(file, 'overrides: {}\n');
    await vi.waitFor(() => expect(onChange).toHaveBeenCalledTimes(3), { timeout: 5000 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await writeFile(overrides, '{}\n');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(onChange).toHaveBeenCalledTimes(3);
  });
});
