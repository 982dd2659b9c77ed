#!/usr/bin/env node
/**
 * Computes, once per benchmark set, the ranked lists hybrid search fuses — the BM25F top 100 with
 * scores, the server stage's score of each hit's server, the built-in model's top 100 by cosine —
 * and writes them to `.aperture/lists/<name>.json`, so that fusion and re-ranking variants
 * (`search-fusion-tune.ts`, `search-ranker-hybrid.ts`, `search-rescore-tune.ts`) replay in
 * seconds. Tool and query vectors are cached in `.aperture/` as well: a second run embeds nothing.
 *
 *   npx tsx bench/tuning/search-lists.ts [--benchmarks DIR] [--only toollens-train,livemcpbench] [--depth 100 --out lists]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createUseLiteEmbedder } from '../../src/operations/embedding/use-lite-embedder.js';
import { SqliteStateStore } from '../../src/operations/state/sqlite-state-store.js';
import { datasetEntries, loadDataset } from '../../src/sources/dataset/dataset-source.js';
import { cachingEmbedder, DEFAULT_BENCHMARKS, option, ROOT } from '../lib/common.js';
import { evenlySpaced, indexCatalog } from './search-catalog.js';

/** The sets measured: folder, queries file, evenly spaced sample (0: all). Training first. */
export const SETS = [
  { name: 'toollens-train', dir: 'toollens', file: 'queries_train.jsonl', sample: 4000 },
  { name: 'toollens-test', dir: 'toollens', file: 'queries.jsonl', sample: 0 },
  { name: 'livemcpbench', dir: 'livemcpbench', file: 'queries.jsonl', sample: 0 },
  { name: 'toolbench', dir: 'toolbench-stb', file: 'queries.jsonl', sample: 0 },
  { name: 'metatool-single', dir: 'metatool', file: 'queries.jsonl', sample: 1000 },
  { name: 'metatool-multi', dir: 'metatool', file: 'queries_multi.jsonl', sample: 0 },
] as const;

/** Depth of each list; `--depth 200 --out lists-200` for a deeper set beside the default one. */
const DEPTH = option('depth', 100);
const benchmarks = option('benchmarks', DEFAULT_BENCHMARKS);
const only = option('only', '');
const store = new SqliteStateStore(path.join(ROOT, '.aperture'));
const embedder = await createUseLiteEmbedder();
const queryEmbedder = cachingEmbedder(embedder, store);
const out = path.join(ROOT, '.aperture', option('out', 'lists'));
mkdirSync(out, { recursive: true });
const log = (line: string) => process.stderr.write(`${line}\n`);

for (const set of SETS) {
  if (only && !only.split(',').includes(set.name)) continue;
  const dataset = await loadDataset(path.join(benchmarks, set.dir), set.file);
  const queries = evenlySpaced(dataset.queries, set.sample);
  const { entries, datasetIdOf } = datasetEntries(dataset.tools);
  log(`${set.name}: ${entries.length} tools, ${queries.length} queries; embedding tools`);
  const { bm25, servers, semantic, namespaceOf } = await indexCatalog(entries, embedder, store);
  const rows = [];
  for (let i = 0; i < queries.length; i += 64) {
    const batch = queries.slice(i, i + 64);
    const vectors = await queryEmbedder.embed(batch.map((q) => q.query));
    for (const [j, q] of batch.entries()) {
      const lexical = bm25.search(q.query, { limit: DEPTH });
      const serverScores = servers.scores(q.query);
      const nearest = await semantic.search(vectors[j]!, { limit: DEPTH });
      rows.push({
        query: q.query,
        relevant: q.relevant,
        bm25: lexical.map((h) => [h.id, h.score]),
        // Only the servers of the hits: the stage multiplies nothing else.
        servers: Object.fromEntries(
          [...new Set(lexical.map((h) => namespaceOf.get(h.id)!))].map((ns) => [
            ns,
            serverScores.get(ns) ?? 0,
          ]),
        ),
        vector: nearest.map((h) => [h.id, h.score]),
      });
    }
    log(`  ${Math.min(i + 64, queries.length)}/${queries.length}`);
  }
  const tools = entries.map(({ tool }) => ({
    id: tool.id,
    namespace: tool.namespace,
    dataset: datasetIdOf.get(tool.id),
  }));
  writeFileSync(path.join(out, `${set.name}.json`), JSON.stringify({ set, tools, rows }));
}
store.close();
