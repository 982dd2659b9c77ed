import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { failure } from '../../../test/support/expect-failure.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { Embedder } from '../../foundation/ports/embedder.js';
import { createHashingEmbedder } from '../../foundation/ports/hashing-embedder.js';
import { MemoryStateStore } from '../../foundation/ports/memory-state-store.js';
import { loadDataset, loadQueries } from '../../sources/dataset/dataset-source.js';
import { runEvaluation } from './run-evaluation.js';

const MINI = path.resolve(import.meta.dirname, '../../../test/fixtures/eval-mini');

describe('runEvaluation', () => {
  it('reports the metrics computed by hand for a tiny dataset', async () => {
    const dataset = await loadDataset(MINI);
    const report = await runEvaluation(dataset, { settings: { strategy: 'bm25' }, k: 10 });
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

  it('replays labelled queries as searches followed by runs, then measures (hand-computed)', async () => {
    const dataset = await loadDataset(MINI);
    const learn = await loadQueries(path.join(MINI, 'queries_learn.jsonl'));
    const report = await runEvaluation(dataset, { settings: { strategy: 'bm25' }, k: 10, learn });
    // l1 "send a message or convert an amount" lists t1 and t3; t3 is relevant, so it learns the
    // query. l2 lists nothing relevant (no match at all): nothing learned.
    expect(report.learned).toEqual({ queries: 2, tools: 1 });
    expect(report.runs).toEqual([
      { id: 'q1', ranked: ['t2'] },
      { id: 'q2', ranked: ['t1', 't3'] },
    ]);
    // R@1 is 1 for q1 and 1/2 for q2 (two relevant tools); every other metric is 1 for both.
    const { 'R@1': r1, ...rest } = report.metrics;
    expect(r1).toBe(75);
    expect(Object.values(rest).every((value) => value === 100)).toBe(true);
    // Without learning, search is what it was.
    const off = await runEvaluation(dataset, {
      settings: { strategy: 'bm25', learning: { enabled: false, maxQueriesPerTool: 50, halfLifeDays: 30 } },
      k: 10,
    });
    expect(off.metrics['R@5']).toBe(75);
    await expect(
      runEvaluation(dataset, {
        settings: { strategy: 'bm25', learning: { enabled: false, maxQueriesPerTool: 50, halfLifeDays: 30 } },
        k: 10,
        learn,
      }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('measures hybrid search once the tool vectors are ready', async () => {
    const dataset = await loadDataset(MINI);
    const report = await runEvaluation(dataset, {
      settings: { strategy: 'hybrid' },
      embedder: createHashingEmbedder(),
      k: 10,
    });
    expect(report.answeredBy).toEqual(['hybrid']);
    // Vectors rank every tool, so each query's relevant tools are all in its top 10.
    expect(report.metrics['R@10']).toBe(100);
    expect(report.runs[0]!.ranked[0]).toBe('t2');
  });

  it('with vectors, embeds the queries to replay ahead in batches, and each replayed search reuses its vector', async () => {
    const dataset = await loadDataset(MINI);
    const learn = await loadQueries(path.join(MINI, 'queries_learn.jsonl'));
    const inner = createHashingEmbedder();
    const calls: string[][] = [];
    const embedder: Embedder = {
      model: inner.model,
      async embed(texts, options) {
        calls.push([...texts]);
        if (texts.includes('quantum teleport') && broken)
          throw new GatewayError('backend_unavailable', 'down');
        return inner.embed(texts, options);
      },
    };
    let broken = false;
    const progress: string[] = [];
    const store = new MemoryStateStore();
    const report = await runEvaluation(dataset, {
      settings: { strategy: 'hybrid' },
      embedder,
      vectorCache: store,
      k: 10,
      learn,
      onQueryEmbedProgress: (done, total) => progress.push(`${done}/${total}`),
    });
    // Vectors list every tool, so both queries' relevant tools were listed, and learned.
    expect(report.learned).toEqual({ queries: 2, tools: 2 });
    const replayed = learn.map((q) => q.query);
    // Both replayed queries in one call, never again one by one (the measured queries are).
    expect(calls.filter((texts) => texts.some((text) => replayed.includes(text)))).toEqual([replayed]);
    expect(progress).toEqual(['2/2']);

    broken = true;
    const failed = await failure(
      runEvaluation(dataset, { settings: { strategy: 'hybrid' }, embedder, k: 10, learn }),
    );
    expect(failed.code).toBe('backend_unavailable');
    expect(failed.message).toContain('embedding the queries to replay failed: down');
  });

  it('refuses malformed dataset lines, naming file and line', async () => {
    await expect(loadDataset(MINI, '../eval-mini/tools.jsonl')).rejects.toThrow(
      /tools\.jsonl:1: needs string "id", string "query"/,
    );
    await expect(loadDataset(path.join(MINI, 'missing'))).rejects.toMatchObject({ code: 'config_invalid' });
  });
});
