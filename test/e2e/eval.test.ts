import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CLI, ROOT } from './gateway-process.js';

const exec = promisify(execFile);
const MINI = path.join(ROOT, 'test/fixtures/eval-mini');

describe('aperture eval', () => {
  it('prints metrics as JSON and writes one ranked line per query', async () => {
    const runs = path.join(await mkdtemp(path.join(tmpdir(), 'aperture-eval-')), 'runs.jsonl');
    const { stdout } = await exec(process.execPath, [
      CLI,
      'eval',
      '--dataset',
      MINI,
      '--json',
      '--runs',
      runs,
    ]);
    const report = JSON.parse(stdout);
    expect(report.metrics['R@5']).toBe(75);
    expect(report.metrics.MRR).toBe(100);
    expect(typeof report.latencyMs.p50).toBe('number');
    const lines = (await readFile(runs, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([
      { id: 'q1', ranked: ['t2'] },
      { id: 'q2', ranked: ['t1'] },
    ]);
  });

  it('learns from a replayed query file before measuring (--learn)', async () => {
    const { stdout } = await exec(process.execPath, [
      CLI,
      'eval',
      '--dataset',
      MINI,
      '--learn',
      'queries_learn.jsonl',
      '--json',
    ]);
    const report = JSON.parse(stdout);
    // l1 listed t3 and "ran" it: q2 "send a message" now finds t3 by its learned query (second,
    // after t1). l2 never listed its relevant tool, so it taught nothing.
    expect(report.learned).toEqual({ queries: 2, tools: 1 });
    expect(report.metrics).toMatchObject({ 'R@5': 100, 'COMP@5': 100, 'NDCG@10': 100, MRR: 100 });
  });

  it('measures the search parameters of --config', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'aperture-eval-'));
    const config = path.join(dir, 'aperture.json');
    // Only parameter names are indexed: t1 has "to", nothing else matches either query.
    const boosts = { name: 0, namespace: 0, title: 0, description: 0, tags: 0, paramNames: 1 };
    await writeFile(config, JSON.stringify({ search: { bm25: { boosts } } }));
    const { stdout } = await exec(process.execPath, [
      CLI,
      'eval',
      '--dataset',
      MINI,
      '--config',
      config,
      '--json',
    ]);
    expect(JSON.parse(stdout).metrics['R@5']).toBe(0);
  });

  it('fails with one line for a missing dataset or an unknown strategy', async () => {
    for (const args of [
      ['--dataset', path.join(MINI, 'nope')],
      ['--dataset', MINI, '--strategy', 'psychic'],
      // A search limit below 10 is for --tokens only: the @10 metrics need ten results.
      ['--dataset', MINI, '--k', '5'],
    ]) {
      const failure = await exec(process.execPath, [CLI, 'eval', ...args]).then(
        () => undefined,
        (e: { code: number; stderr: string }) => e,
      );
      expect(failure?.code).not.toBe(0);
      expect(failure?.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('--tokens: tokens per task under flat, metatools and auto exposure, as JSON', async () => {
    const { stdout } = await exec(process.execPath, [CLI, 'eval', '--dataset', MINI, '--tokens', '--json']);
    const report = JSON.parse(stdout);
    expect(report).toMatchObject({ encoding: 'o200k_base', tools: 3, queries: 2, k: 5, autoChose: 'flat' });
    expect(report.modes.flat).toEqual({
      tokensPerTask: report.flatListTokens,
      hits: 2,
      tokensPerSuccess: report.flatListTokens,
    });
    expect(report.modes.metatools.tokensPerTask).toBeCloseTo(
      report.metatoolSurfaceTokens + report.searchAnswerTokens + report.describeTokens,
      0,
    );
    expect(report.runs).toBeUndefined();
  });

  it('--tokens counts the config’s pinned tools in the metatools surface and names them', async () => {
    const config = path.join(await mkdtemp(path.join(tmpdir(), 'aperture-eval-pinned-')), 'aperture.yaml');
    await writeFile(config, 'exposure: { mode: auto, pinned: ["Weather:*"] }\n');
    const run = async (extra: string[]) =>
      (
        await exec(process.execPath, [
          CLI,
          'eval',
          '--dataset',
          MINI,
          '--tokens',
          '--config',
          config,
          ...extra,
        ])
      ).stdout;
    const pinned = JSON.parse(await run(['--json']));
    const plain = JSON.parse(
      (await exec(process.execPath, [CLI, 'eval', '--dataset', MINI, '--tokens', '--json'])).stdout,
    );
    expect(pinned.pinned).toEqual(['t2']);
    expect(plain.pinned).toEqual([]);
    expect(pinned.metatoolSurfaceTokens).toBeGreaterThan(plain.metatoolSurfaceTokens);
    expect(await run([])).toMatch(/pinned beside the metatools: 1 tools \(t2\)/);
  });

  it('--tokens with a missing dataset or an unknown encoding exits 2 with one line', async () => {
    for (const args of [
      ['--dataset', path.join(MINI, 'nope'), '--tokens'],
      ['--dataset', MINI, '--tokens', '--encoding', 'p50k'],
    ]) {
      const failure = await exec(process.execPath, [CLI, 'eval', ...args]).then(
        () => undefined,
        (e: { code: number; stderr: string }) => e,
      );
      expect(failure?.code).toBe(2);
      expect(failure?.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});
