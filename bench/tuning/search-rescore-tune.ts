#!/usr/bin/env node
/**
 * Two model-free re-scorings of the BM25F list (neither shipped), over the top 100 after the server
 * stage, BM25F alone and fused with the vector list by scores:
 * - proximity `β`: score × (1 + β · the share of the query's adjacent term pairs that the tool's
 *   name, title or description also writes adjacently);
 * - coverage `γ`: score × (share of the query's terms the tool matches)^γ (Lucene's old "coord").
 * Replays the lists `search-lists.ts` wrote; the tool text is read again.
 *
 *   npx tsx bench/tuning/search-rescore-tune.ts [--benchmarks DIR] [--sets toollens-train,...]
 */
import path from 'node:path';
import * as metrics from '../../src/discovery/evaluation/retrieval-metrics.js';
import { fuseScores } from '../../src/discovery/rank-fusion.js';
import { compareHits, type SearchHit } from '../../src/discovery/search-index.js';
import { tokenize } from '../../src/discovery/tokenizer.js';
import { toolFields } from '../../src/discovery/tool-fields.js';
import { datasetEntries, loadDataset } from '../../src/sources/dataset/dataset-source.js';
import { DEFAULT_BENCHMARKS, option } from '../lib/common.js';
import { loadLists, SET_FILES, SET_NAMES, staged } from './search-fusion-tune.js';

const benchmarks = option('benchmarks', DEFAULT_BENCHMARKS);
const sets = option('sets', SET_NAMES.join(',')).split(',');
const pairsOf = (terms: string[]) => terms.slice(1).map((term, i) => `${terms[i]} ${term}`);

const header: string[] = ['variant'];
const columns: Map<string, string>[] = [];
for (const name of sets) {
  const lists = loadLists(name);
  if (!lists) continue;
  const [dir, file] = SET_FILES[name]!;
  const { entries } = datasetEntries((await loadDataset(path.join(benchmarks, dir), file)).tools);
  const toolPairs = new Map<string, Set<string>>();
  const toolTerms = new Map<string, Set<string>>();
  for (const { tool } of entries) {
    const fields = toolFields(tool);
    const pairs = new Set<string>();
    toolTerms.set(tool.id, new Set(Object.values(fields).flatMap((text) => tokenize(text))));
    for (const text of [fields.name, fields.title, fields.description])
      for (const p of pairsOf(tokenize(text))) pairs.add(p);
    toolPairs.set(tool.id, pairs);
  }
  const column = new Map<string, string>();
  const metric = name === 'livemcpbench' ? 'NDCG@10' : 'R@5';
  header.push(`${name} ${metric}`);
  const variants: [string, number][] = [
    ['β', 0],
    ...[0.1, 0.25, 0.5, 1].map((v): [string, number] => ['β', v]),
    ...[0.25, 0.5, 1, 2].map((v): [string, number] => ['γ', v]),
  ];
  for (const hybrid of [false, true]) {
    for (const [kind, value] of variants) {
      let total = 0;
      for (const row of lists.rows) {
        const queryTerms = [...new Set(tokenize(row.query))];
        const queryPairs = pairsOf(tokenize(row.query));
        let lexical: SearchHit[] = staged(row, lists.namespaceOf);
        const factor = (id: string) => {
          if (kind === 'β') {
            const pairs = toolPairs.get(id)!;
            const share = queryPairs.length
              ? queryPairs.filter((p) => pairs.has(p)).length / queryPairs.length
              : 0;
            return 1 + value * share;
          }
          const terms = toolTerms.get(id)!;
          const share = queryTerms.length
            ? queryTerms.filter((t) => terms.has(t)).length / queryTerms.length
            : 1;
          return share ** value;
        };
        if (value > 0) {
          lexical = lexical
            .map((hit) => ({ id: hit.id, score: hit.score * factor(hit.id) }))
            .sort(compareHits);
        }
        const ranked = hybrid
          ? fuseScores([
              { hits: lexical, weight: 1 },
              { hits: row.vector.map(([id, score]) => ({ id, score })), weight: 1 },
            ])
          : lexical;
        const ids = ranked.slice(0, 10).map((h) => lists.datasetOf.get(h.id) ?? h.id);
        const relevant = new Set(row.relevant);
        total += metric === 'R@5' ? metrics.recallAt(ids, relevant, 5) : metrics.ndcgAt(ids, relevant, 10);
      }
      column.set(
        `${hybrid ? 'hybrid' : 'bm25'} ${kind} ${value}`,
        ((100 * total) / lists.rows.length).toFixed(1),
      );
    }
  }
  columns.push(column);
}
process.stdout.write(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|\n`);
for (const variant of columns[0]?.keys() ?? []) {
  process.stdout.write(`| ${variant} | ${columns.map((c) => c.get(variant)).join(' | ')} |\n`);
}
