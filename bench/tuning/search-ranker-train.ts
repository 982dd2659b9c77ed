#!/usr/bin/env node
/**
 * Trains a small linear re-ranker (logistic regression over per-candidate features any catalog
 * has) on the ToolLens **training** queries only — even lines to fit, odd lines to measure — and
 * evaluates it zero-shot on the other sets. Throwaway features are computed in process from the
 * BM25F index of src/ (its `explain`), the server stage and the tool itself.
 *
 *   npx tsx bench/tuning/search-ranker-train.ts [--benchmarks DIR] [--sample 4000] [--depth 30] [--test]
 *
 * `--test` also measures the test sets (for the report only: nothing here is chosen on them).
 */
import path from 'node:path';
import { Bm25Index } from '../../src/discovery/bm25-index.js';
import * as metrics from '../../src/discovery/evaluation/retrieval-metrics.js';
import { ServerIndex } from '../../src/discovery/server-index.js';
import { tokenize } from '../../src/discovery/tokenizer.js';
import { TOOL_FIELDS } from '../../src/discovery/tool-fields.js';
import type { Tool } from '../../src/foundation/tool.js';
import { datasetEntries, loadDataset } from '../../src/sources/dataset/dataset-source.js';
import { DEFAULT_BENCHMARKS, flag, option } from '../lib/common.js';
import { type Example, score, trainLogistic } from './logistic-regression.js';

const FIELDS = TOOL_FIELDS.filter((field) => field !== 'learned');
const FEATURES = [
  ...FIELDS.map((f) => `field:${f}`),
  'bm25/top',
  'bm25 rank⁻¹',
  'server',
  'query terms matched',
  'log description length',
  'parameters',
  'bias',
];

function setup(tools: Tool[]) {
  const index = new Bm25Index({ exactMatchBoost: false });
  const servers = new ServerIndex();
  for (const tool of tools) {
    index.upsert(tool);
    servers.upsert(tool);
  }
  const byId = new Map(tools.map((t) => [t.id, t]));
  return { index, servers, byId };
}

type Setup = ReturnType<typeof setup>;

function candidates(s: Setup, query: string, depth: number) {
  const hits = s.index.search(query, { limit: depth });
  const top = hits[0]?.score ?? 1;
  const serverScores = s.servers.scores(query);
  const terms = new Set(tokenize(query));
  return hits.map((hit, i) => {
    const e = s.index.explain(query, hit.id)!;
    const tool = s.byId.get(hit.id)!;
    const props = tool.inputSchema.properties;
    const x = [
      ...FIELDS.map((f) => (e.fields[f] ?? 0) / top),
      hit.score / top,
      1 / (i + 1),
      serverScores.get(tool.namespace) ?? 0,
      terms.size ? Object.keys(e.terms).length / terms.size : 0,
      Math.log1p(tool.description.length) / 8,
      Math.min(props && typeof props === 'object' ? Object.keys(props).length : 0, 20) / 20,
      1,
    ];
    return { id: hit.id, x };
  });
}

/** `--without a,b`: features (by name prefix) left out, for the ablation. */
const WITHOUT = option('without', '').split(',').filter(Boolean);
const used = FEATURES.map((f) => !WITHOUT.some((prefix) => f.startsWith(prefix)));
const dot = (w: number[], x: number[]) => score(w, x, used);

const train = (rows: Example[]) => trainLogistic(rows, used, 300);

async function main() {
  const benchmarks = option('benchmarks', DEFAULT_BENCHMARKS);
  const sample = option('sample', 4000);
  const depth = option('depth', 30);
  const load = async (dir: string, file: string, n = 0) => {
    const ds = await loadDataset(path.join(benchmarks, dir), file);
    let qs = ds.queries;
    if (n && n < qs.length) {
      const step = qs.length / n;
      qs = Array.from({ length: n }, (_, i) => qs[Math.floor(i * step)]!);
    }
    const { entries, datasetIdOf } = datasetEntries(ds.tools);
    return { s: setup(entries.map((e) => e.tool)), qs, datasetIdOf };
  };
  const train_ = await load('toollens', 'queries_train.jsonl', sample);
  const fit = train_.qs.filter((_, i) => i % 2 === 0);
  const held = train_.qs.filter((_, i) => i % 2 === 1);
  const rows: { x: number[]; y: number }[] = [];
  for (const q of fit) {
    const rel = new Set(q.relevant);
    for (const c of candidates(train_.s, q.query, depth))
      rows.push({ x: c.x, y: rel.has(train_.datasetIdOf.get(c.id) ?? c.id) ? 1 : 0 });
  }
  const w = train(rows);
  console.log(FEATURES.map((f, i) => `${f} ${w[i]!.toFixed(3)}`).join('\n'));
  const measure = (set: Awaited<ReturnType<typeof load>>, qs: typeof held, metric: 'R@5' | 'NDCG@10') => {
    let base = 0;
    let ranked = 0;
    for (const q of qs) {
      const rel = new Set(q.relevant);
      const cands = candidates(set.s, q.query, depth);
      const ids = (list: typeof cands) => list.map((c) => set.datasetIdOf.get(c.id) ?? c.id);
      const reranked = [...cands].sort((a, b) => dot(w, b.x) - dot(w, a.x));
      const m = (list: string[]) =>
        metric === 'R@5' ? metrics.recallAt(list, rel, 5) : metrics.ndcgAt(list, rel, 10);
      base += m(ids(cands));
      ranked += m(ids(reranked));
    }
    return `${metric} ${((100 * base) / qs.length).toFixed(1)} → ${((100 * ranked) / qs.length).toFixed(1)}`;
  };
  console.log(`toollens train, held-out half (${held.length}): ${measure(train_, held, 'R@5')}`);
  if (flag('test')) {
    for (const [dir, file, metric, n] of [
      ['toollens', 'queries.jsonl', 'R@5', 0],
      ['livemcpbench', 'queries.jsonl', 'NDCG@10', 0],
      ['toolbench-stb', 'queries.jsonl', 'R@5', 0],
      ['metatool', 'queries.jsonl', 'R@5', 1000],
      ['metatool', 'queries_multi.jsonl', 'R@5', 0],
    ] as const) {
      const set = await load(dir, file, n);
      console.log(`${dir} ${file}: ${measure(set, set.qs, metric)}`);
    }
  }
}

await main();
