#!/usr/bin/env node
/**
 * Which query words `search.expandQueries` would expand on a benchmark set, and how often: the
 * readings the catalog teaches (`src/discovery/query-expansion.ts`), most frequent first.
 *
 *   npx tsx bench/tuning/search-expansions.ts [--benchmarks DIR] [--set toollens] [--queries queries_train.jsonl] [--verbs]
 */
import path from 'node:path';
import { loadWordNetVerbs } from '../../src/composition/wordnet-verbs.js';
import { QueryExpander } from '../../src/discovery/query-expansion.js';
import { datasetEntries, loadDataset } from '../../src/sources/dataset/dataset-source.js';
import { DEFAULT_BENCHMARKS, flag, option } from '../lib/common.js';

const dir = path.join(option('benchmarks', DEFAULT_BENCHMARKS), option('set', 'toollens'));
const dataset = await loadDataset(dir, option('queries', 'queries_train.jsonl'));
// `--verbs`: WordNet's verb synonyms as well (`search.verbSynonyms`).
const expander = new QueryExpander(flag('verbs') ? { verbs: loadWordNetVerbs() } : {});
for (const entry of datasetEntries(dataset.tools).entries) expander.upsert(entry.tool);
const counts = new Map<string, number>();
for (const query of dataset.queries) {
  for (const [word, reading] of Object.entries(expander.expand(query.query))) {
    const key = `${word} → ${reading.join(' ')}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
}
const expanded = [...counts.values()].reduce((a, b) => a + b, 0);
process.stdout.write(`${dataset.queries.length} queries, ${expanded} expansions\n`);
for (const [key, n] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, 40))
  process.stdout.write(`${n} ${key}\n`);
