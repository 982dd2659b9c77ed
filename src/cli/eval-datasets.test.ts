import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { datasetList, resolveDataset, SHIPPED_DATASETS } from './eval-datasets.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('SHIPPED_DATASETS', () => {
  it('lists exactly the data sets in the repository, each with its source and licence', async () => {
    const { existsSync } = await import('node:fs');
    for (const dataset of SHIPPED_DATASETS) {
      expect(existsSync(path.join(ROOT, dataset.dir, 'tools.jsonl')), dataset.name).toBe(true);
      expect(existsSync(path.join(ROOT, dataset.dir, 'queries.jsonl')), dataset.name).toBe(true);
      expect(dataset.source).not.toBe('');
      expect(dataset.licence).not.toBe('');
      expect(datasetList()).toContain(dataset.name);
    }
  });
});

describe('resolveDataset', () => {
  it('finds a shipped data set by name under the package root', () => {
    expect(resolveDataset('mini', '/anywhere', ROOT)).toBe(path.join(ROOT, 'test/fixtures/eval-mini'));
  });

  it('takes a path as a folder, relative to the working directory', () => {
    expect(resolveDataset('./sets/a', '/home/user', ROOT)).toBe(path.resolve('/home/user/sets/a'));
    expect(resolveDataset('/abs/toollens', '/home/user', ROOT)).toBe('/abs/toollens');
  });

  it('takes an existing folder named like a word as that folder', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'aperture-ds-'));
    try {
      expect(resolveDataset(path.basename(dir), path.dirname(dir), ROOT)).toBe(dir);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses an unknown name, listing the shipped ones', () => {
    let error: unknown;
    try {
      resolveDataset('toollens', '/home/user', ROOT);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe('invalid_request');
    expect((error as GatewayError).message).toContain('Unknown data set "toollens"');
    expect((error as GatewayError).message).toContain('mini (3 tools');
    expect((error as GatewayError).message).not.toContain('\n');
  });

  it('says so when a shipped data set is missing from this installation (the npm package)', () => {
    expect(() => resolveDataset('mini', '/home/user', '/nonexistent-package-root')).toThrow(
      /ships with the repository/,
    );
  });
});
