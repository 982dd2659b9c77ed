#!/usr/bin/env node
/**
 * How far fusing the two lists can go: on the lists `search-lists.ts` wrote (run it first), each
 * query is fused as shipped (scores, vector weight 1, server stage 0.5) and, as an upper bound, at
 * the vector weight that is best for that very query, chosen with its labels (an oracle no search
 * has). Also the share of the relevant tools that either list holds in its top 100: what any
 * re-ranking of the two lists could still reach. R@5 (LiveMCPBench NDCG@10, its metric).
 *
 *   npx tsx bench/tuning/search-fusion-bound.ts [--sets toollens-train,toollens-test,...] [--lists lists]
 */
import * as metrics from '../../src/discovery/evaluation/retrieval-metrics.js';
import { fuseScores } from '../../src/discovery/rank-fusion.js';
import type { SearchHit } from '../../src/discovery/search-index.js';
import { option } from '../lib/common.js';
import { loadLists, SET_NAMES, staged } from './search-fusion-tune.js';

/** The vector weights the oracle picks from; 0 is BM25F alone, 1000 the vectors all but alone. */
const WEIGHTS = [0, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 1000];
const SHIPPED_WEIGHT = 1;

export async function main() {
  const sets = option('sets', SET_NAMES.join(',')).split(',');
  console.log(
    '| set | queries | shipped | best weight per query (oracle) | relevant tools in either top 100 |',
  );
  console.log('| --- | --- | --- | --- | --- |');
  for (const name of sets) {
    const lists = loadLists(name);
    if (!lists) {
      console.log(`| ${name} | — | lists missing: run search-lists.ts | | |`);
      continue;
    }
    const metric = (ranked: string[], relevant: Set<string>) =>
      name === 'livemcpbench' ? metrics.ndcgAt(ranked, relevant, 10) : metrics.recallAt(ranked, relevant, 5);
    const asDataset = (hits: SearchHit[]) => hits.map((h) => lists.datasetOf.get(h.id) ?? h.id);
    let shipped = 0;
    let oracle = 0;
    let reachable = 0;
    for (const row of lists.rows) {
      const relevant = new Set(row.relevant);
      const lexical = staged(row, lists.namespaceOf);
      const vector = row.vector.map(([id, score]) => ({ id, score }));
      let best = 0;
      for (const weight of WEIGHTS) {
        const fused =
          weight === 0
            ? lexical
            : fuseScores([
                { hits: lexical, weight: 1 },
                { hits: vector, weight },
              ]);
        const value = metric(asDataset(fused), relevant);
        if (weight === SHIPPED_WEIGHT) shipped += value;
        best = Math.max(best, value);
      }
      oracle += best;
      const either = new Set(asDataset([...lexical.slice(0, 100), ...vector.slice(0, 100)]));
      reachable += [...relevant].filter((id) => either.has(id)).length / relevant.size;
    }
    const pct = (sum: number) => ((100 * sum) / lists.rows.length).toFixed(1);
    console.log(`| ${name} | ${lists.rows.length} | ${pct(shipped)} | ${pct(oracle)} | ${pct(reachable)} |`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
