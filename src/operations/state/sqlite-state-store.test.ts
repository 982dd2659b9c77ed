import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { failureOf } from '../../../test/support/expect-failure.js';
import { runStateStoreContract } from '../../foundation/state-store.contract.js';
import { SqliteStateStore } from './sqlite-state-store.js';

const freshDir = () => mkdtempSync(path.join(tmpdir(), 'aperture-state-'));

runStateStoreContract(
  'SqliteStateStore',
  () => new SqliteStateStore(freshDir()),
  (store) => {
    store.close();
    return new SqliteStateStore((store as SqliteStateStore).dir);
  },
);

describe('SqliteStateStore', () => {
  it('creates missing directories', () => {
    const dir = path.join(freshDir(), 'nested', 'deeper');
    const store = new SqliteStateStore(dir);
    store.set('s', 'k', 1);
    expect(store.get('s', 'k')).toBe(1);
    store.close();
  });

  it('refuses a path it cannot use with config_invalid', () => {
    const file = path.join(freshDir(), 'a-file');
    writeFileSync(file, 'not a directory');
    const error = failureOf(() => new SqliteStateStore(path.join(file, 'sub')));
    expect(error.code).toBe('config_invalid');
    expect(error.message).toContain(path.join(file, 'sub'));
  });

  it('refuses a file that is not a database', () => {
    const dir = freshDir();
    writeFileSync(path.join(dir, 'state.db'), 'garbage '.repeat(200));
    const error = failureOf(() => new SqliteStateStore(dir));
    expect(error.code).toBe('config_invalid');
  });
});
