import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDataset } from '../../sources/dataset/dataset-source.js';
import { runEvaluation } from './run-evaluation.js';

const MINI = path.resolve(import.meta.dirname, '../../../test/fixtures/eval-mini');

describe('runEvaluation', () => {
  it('reports the metrics computed by hand for a tiny dataset', async () => {
    const dataset = await loadDataset(MINI);
    const report = runEvaluation(dataset, { strategy: 'bm25', k: 10 });
    // q1 "weather forecast for Paris" → t2 first (relevant: t2): every metric 1.
    // q2 "send a message" → only t1 matches (relevant: t1, t3): recall 1/2 at any k, COMP 0,
    //   NDCG = 1 / (1 + 1/log2 3) = 0.61315, RR 1.
    expect(report.runs).toEqual([
      { id: 'q1', ranked: ['t2'] },
      { id: 'q2', ranked: ['t1'] },
    ]);
    expect(report.metrics).toEqual({
      'R@1': 75,
      'R@5': 75,
      'R@10': 75,
      'NDCG@5': 80.66,
      'NDCG@10': 80.66,
      'COMP@5': 50,
      'COMP@10': 50,
      MRR: 100,
    });
    expect(report).toMatchObject({ tools: 3, queries: 2, strategy: 'bm25' });
  });

  it('refuses malformed dataset lines, naming file and line', async () => {
    await expect(loadDataset(MINI, '../eval-mini/tools.jsonl')).rejects.toThrow(
      /tools\.jsonl:1: needs string "id", string "query"/,
    );
    await expect(loadDataset(path.join(MINI, 'missing'))).rejects.toMatchObject({ code: 'config_invalid' });
  });
});
