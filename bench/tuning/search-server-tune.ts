#!/usr/bin/env node
/**
 * The server stage (`src/discovery/server-index.ts`), measured in process on BM25F: a flat
 * ranking against ways of letting the server (namespace) a query matches reorder its tools.
 *
 *   npx tsx bench/tuning/search-server-tune.ts [--benchmarks DIR] [--set toollens] [--queries queries_train.jsonl] [--sample 4000]
 *
 * Tune on the default (ToolLens training queries); `--set`/`--queries` name a test set to measure.
 * Variants: `mult λ` — score × (1 + λ · server score, the best server 1), what `search.serverWeight`
 * does; `multi-tool λ` — the same, servers of one tool left out; `hier S w` — the tools of the S
 * best servers as a second list (server rank, then tool score), fused with the flat one by RRF at
 * weight w.
 */
import path from 'node:path';
import { Bm25Index } from '../../src/discovery/bm25-index.js';
import * as metrics from '../../src/discovery/evaluation/retrieval-metrics.js';
import { fuseRanks } from '../../src/discovery/rank-fusion.js';
import type { SearchHit } from '../../src/discovery/search-index.js';
import { ServerIndex } from '../../src/discovery/server-index.js';
import type { Tool } from '../../src/foundation/tool.js';
import { datasetEntries, loadDataset } from '../../src/sources/dataset/dataset-source.js';
import { DEFAULT_BENCHMARKS, option } from '../lib/common.js';
import { evenlySpaced } from './search-catalog.js';

const set = option('set', 'toollens');
const file = option('queries', 'queries_train.jsonl');
const sample = option('sample', 4000);
const dataset = await loadDataset(path.join(option('benchmarks', DEFAULT_BENCHMARKS), set), file);
const queries = evenlySpaced(dataset.queries, sample);
const { entries, datasetIdOf } = datasetEntries(dataset.tools);
const tools = entries.map((entry) => entry.tool);
const index = new Bm25Index();
const servers = new ServerIndex();
const byNamespace = new Map<string, Tool[]>();
for (const tool of tools) {
  index.upsert(tool);
  servers.upsert(tool);
  byNamespace.set(tool.namespace, [...(byNamespace.get(tool.namespace) ?? []), tool]);
}
const namespaceOf = new Map(tools.map((tool) => [tool.id, tool.namespace]));

const multiplied = (query: string, lambda: number, keep: (namespace: string) => boolean) => {
  const scores = servers.scores(query);
  return index
    .search(query, { limit: 100 })
    .map((hit) => {
      const namespace = namespaceOf.get(hit.id)!;
      const server = keep(namespace) ? (scores.get(namespace) ?? 0) : 0;
      return { id: hit.id, score: hit.score * (1 + lambda * server) };
    })
    .sort((a, b) => b.score - a.score);
};

const variants: Record<string, (query: string) => SearchHit[]> = {
  flat: (query) => index.search(query, { limit: 10 }),
};
for (const lambda of [0.25, 0.5, 1, 2]) variants[`mult ${lambda}`] = (q) => multiplied(q, lambda, () => true);
for (const lambda of [0.5, 1]) {
  variants[`multi-tool ${lambda}`] = (q) =>
    multiplied(q, lambda, (namespace) => (byNamespace.get(namespace)?.length ?? 0) > 1);
}
for (const top of [1, 3, 5]) {
  for (const weight of [0.5, 1]) {
    variants[`hier ${top} ${weight}`] = (query) => {
      const flat = index.search(query, { limit: 100 });
      const own = new Map(flat.map((hit) => [hit.id, hit.score]));
      const ordered: SearchHit[] = [];
      for (const [namespace] of [...servers.scores(query)].sort((a, b) => b[1] - a[1]).slice(0, top)) {
        const members = (byNamespace.get(namespace) ?? []).map((t) => ({
          id: t.id,
          score: own.get(t.id) ?? 0,
        }));
        ordered.push(...members.sort((a, b) => b.score - a.score));
      }
      return fuseRanks([
        { hits: flat, weight: 1 },
        { hits: ordered, weight },
      ]);
    };
  }
}

const relevant = queries.map((q) => new Set(q.relevant));
process.stdout.write(
  `${set} ${file}: ${queries.length} queries, ${tools.length} tools, ${byNamespace.size} servers\n`,
);
for (const [name, rank] of Object.entries(variants)) {
  let recall = 0;
  let ndcg = 0;
  queries.forEach((query, i) => {
    const ranked = rank(query.query)
      .slice(0, 10)
      .map((hit) => datasetIdOf.get(hit.id) ?? hit.id);
    recall += metrics.recallAt(ranked, relevant[i]!, 5);
    ndcg += metrics.ndcgAt(ranked, relevant[i]!, 10);
  });
  const pct = (v: number) => ((100 * v) / queries.length).toFixed(1);
  process.stdout.write(`${name.padEnd(16)} R@5 ${pct(recall)}  NDCG@10 ${pct(ndcg)}\n`);
}
