import { closeSync, mkdirSync, openSync, readdirSync, rmSync, statSync, writeSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteStateStore } from '../../src/operations/state/sqlite-state-store.js';
import { startHttpGateway } from './gateway-process.js';

/**
 * `aperture serve` with a damaged `state.db`: the store holds caches and learned signals, so the
 * gateway starts anyway — the file moved aside and logged once, or a bad row skipped and logged.
 */
let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'aperture-state-e2e-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A gateway folder whose state store holds failure statistics (read at start by search). */
async function gatewayDir(name: string): Promise<{ dir: string; db: string }> {
  const dir = path.join(root, name);
  mkdirSync(dir);
  await writeFile(path.join(dir, 'aperture.yaml'), 'state: { driver: sqlite, dir: state }\n');
  const store = new SqliteStateStore(path.join(dir, 'state'));
  store.setMany(
    'failures',
    Array.from(
      { length: 300 },
      (_, i) => [`tool:${i}`, { failures: 1, at: Date.now(), pad: 'x'.repeat(300) }] as const,
    ),
  );
  store.close();
  return { dir, db: path.join(dir, 'state', 'state.db') };
}

const damages: [string, (db: string) => void][] = [
  ['garbage in place of the file', (db) => writeFileSync(db, 'this is not sqlite '.repeat(100))],
  [
    'malformed pages',
    (db) => {
      const fd = openSync(db, 'r+');
      writeSync(fd, Buffer.alloc(16384, 0x5a), 0, 16384, 4096);
      closeSync(fd);
    },
  ],
  [
    'a directory in place of the file',
    (db) => {
      rmSync(db);
      mkdirSync(path.join(db, 'x'), { recursive: true });
    },
  ],
];

function writeFileSync(file: string, text: string): void {
  const fd = openSync(file, 'w');
  writeSync(fd, text);
  closeSync(fd);
}

async function expectServing(url: string): Promise<void> {
  expect((await fetch(`${url}/readyz`)).status).toBe(200);
  const search = await fetch(`${url}/api/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'current time' }),
  });
  expect(search.status).toBe(200);
}

describe('a damaged state.db', () => {
  it.each(damages)('%s: starts, moves it aside, logs it once', async (kind, damage) => {
    const { dir, db } = await gatewayDir(kind.replace(/\W+/g, '-'));
    damage(db);
    await using gateway = await startHttpGateway(['--config', 'aperture.yaml'], dir);
    await expectServing(gateway.url);
    const aside = readdirSync(path.dirname(db)).filter((f) => f.startsWith('state.db.corrupt-'));
    expect(aside).toHaveLength(1);
    expect(statSync(db).isFile()).toBe(true);
    const lines = gateway
      .stderr()
      .split('\n')
      .filter((line) => line.includes('moved aside'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(aside[0]);
  });

  it('one row that is not JSON: starts, skips and logs the row, keeps the file', async () => {
    const { dir, db } = await gatewayDir('bad-row');
    const raw = new Database(db);
    raw.prepare("UPDATE state SET value = '{not json' WHERE scope = 'failures' AND key = 'tool:3'").run();
    raw.close();
    await using gateway = await startHttpGateway(['--config', 'aperture.yaml'], dir);
    await expectServing(gateway.url);
    expect(readdirSync(path.dirname(db)).filter((f) => f.startsWith('state.db.corrupt-'))).toEqual([]);
    const lines = gateway
      .stderr()
      .split('\n')
      .filter((line) => line.includes('unreadable row'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('tool:3');
  });
});
