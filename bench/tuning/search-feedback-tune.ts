#!/usr/bin/env node
/**
 * Pseudo-relevance feedback on BM25F (RM3-style; not shipped, docs/SEARCH.md), measured in process
 * with the server stage as shipped: the query is searched, the top `docs` hits give `terms` terms
 * weighing up to `weight` (each query term weighs 1), the query is searched again with them.
 *
 *   npx tsx bench/tuning/search-feedback-tune.ts [--benchmarks DIR] [--set toollens] [--queries queries_train.jsonl] [--sample 4000] [--grid full|short]
 *
 * Tune on the default (ToolLens training queries); `--set`/`--queries` name a test set to measure.
 */
import path from 'node:path';
import { BM25_DEFAULTS } from '../../src/discovery/bm25-defaults.js';
import { Bm25Index } from '../../src/discovery/bm25-index.js';
import * as metrics from '../../src/discovery/evaluation/retrieval-metrics.js';
import { DEFAULT_SERVER_WEIGHT } from '../../src/discovery/search-defaults.js';
import { compareHits, type SearchHit } from '../../src/discovery/search-index.js';
import { ServerIndex } from '../../src/discovery/server-index.js';
import { forEachWord, normalizeWord, tokenize } from '../../src/discovery/tokenizer.js';
import { TOOL_FIELDS, toolFields } from '../../src/discovery/tool-fields.js';
import { datasetEntries, loadDataset } from '../../src/sources/dataset/dataset-source.js';
import { DEFAULT_BENCHMARKS, option } from '../lib/common.js';
import { evenlySpaced } from './search-catalog.js';

const set = option('set', 'toollens');
const file = option('queries', 'queries_train.jsonl');
const sample = option('sample', 4000);
const grid = option('grid', 'full');
const dataset = await loadDataset(path.join(option('benchmarks', DEFAULT_BENCHMARKS), set), file);
const queries = evenlySpaced(dataset.queries, sample);
const { entries, datasetIdOf } = datasetEntries(dataset.tools);
const index = new Bm25Index();
// Scores each added term alone: BM25F is a sum over query terms, so the query's scores plus
// weight × each added term's scores is the weighted query's BM25F score. No exact-name lift there.
const byTerm = new Bm25Index({ exactMatchBoost: false });
const servers = new ServerIndex();
for (const { tool } of entries) {
  index.upsert(tool);
  byTerm.upsert(tool);
  servers.upsert(tool);
}
const namespaceOf = new Map(entries.map(({ tool }) => [tool.id, tool.namespace]));

/** Per tool, each term's boosted count over the fields, and the boosted length; df per term. */
const termCounts = new Map<string, { counts: Map<string, number>; length: number }>();
const docFreq = new Map<string, number>();
/** A word that becomes each term, to search the term by. */
const wordOf = new Map<string, string>();
for (const { tool } of entries) {
  const fields = toolFields(tool);
  const counts = new Map<string, number>();
  let length = 0;
  for (const field of TOOL_FIELDS) {
    const boost = BM25_DEFAULTS.boosts[field];
    forEachWord(fields[field], (word) => {
      const term = normalizeWord(word);
      if (term === undefined || boost === 0) return;
      if (!wordOf.has(term)) wordOf.set(term, word);
      counts.set(term, (counts.get(term) ?? 0) + boost);
      length += boost;
    });
  }
  termCounts.set(tool.id, { counts, length });
  for (const term of counts.keys()) docFreq.set(term, (docFreq.get(term) ?? 0) + 1);
}

interface FeedbackOptions {
  terms: number;
  weight: number;
  idfPower: number;
}
/**
 * A relevance model (Lavrenko & Croft 2001, as RM3 uses it): each term of the top hits valued
 * Σ_hit (its score share) × (boosted count / boosted length) × idf^idfPower, the query's own terms
 * left out; the best `terms` returned, the best weighing `weight`, the others in proportion.
 */
function feedbackTerms(query: string, hits: SearchHit[], options: FeedbackOptions): [string, number][] {
  const own = new Set(tokenize(query));
  const total = hits.reduce((sum, hit) => sum + hit.score, 0);
  const values = new Map<string, number>();
  for (const hit of hits) {
    const doc = termCounts.get(hit.id)!;
    if (doc.length === 0) continue;
    for (const [term, count] of doc.counts) {
      if (own.has(term)) continue;
      values.set(term, (values.get(term) ?? 0) + ((hit.score / total) * count) / doc.length);
    }
  }
  const n = entries.length;
  const ranked = [...values].map(([term, value]): [string, number] => {
    const df = docFreq.get(term)!;
    return [term, value * Math.log(1 + (n - df + 0.5) / (df + 0.5)) ** options.idfPower];
  });
  ranked.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const best = ranked[0]?.[1] ?? 0;
  return ranked.slice(0, options.terms).map(([term, value]) => [term, (options.weight * value) / best]);
}

/** The query's BM25F scores with the added terms, every tool, best first. */
function expandedSearch(query: string, added: [string, number][]): SearchHit[] {
  const scores = new Map(index.search(query, { limit: entries.length }).map((hit) => [hit.id, hit.score]));
  for (const [term, weight] of added) {
    for (const hit of byTerm.search(wordOf.get(term)!, { limit: entries.length })) {
      scores.set(hit.id, (scores.get(hit.id) ?? 0) + weight * hit.score);
    }
  }
  return [...scores].map(([id, score]) => ({ id, score })).sort(compareHits);
}

const byServer = (hits: SearchHit[], scores: Map<string, number>) =>
  hits
    .map((hit) => ({
      id: hit.id,
      score: hit.score * (1 + DEFAULT_SERVER_WEIGHT * (scores.get(namespaceOf.get(hit.id)!) ?? 0)),
    }))
    .sort(compareHits);

interface Variant {
  docs: number;
  feedback: FeedbackOptions;
  /** Feed back only when the best hit's score is at least this share above the docs-th one. */
  gap: number;
}
const rank = (query: string, variant?: Variant): SearchHit[] => {
  const scores = servers.scores(query);
  const first = byServer(index.search(query, { limit: 100 }), scores);
  if (!variant) return first;
  const top = first.slice(0, variant.docs);
  if (top.length === 0) return first;
  if (variant.gap > 0 && top[0]!.score < (1 + variant.gap) * top.at(-1)!.score) return first;
  const added = feedbackTerms(query, top, variant.feedback);
  return byServer(expandedSearch(query, added).slice(0, 100), scores);
};

const variants: [string, Variant | undefined][] = [['none', undefined]];
const docsRange = grid === 'short' ? [3, 5, 10] : [1, 3, 5, 10, 20];
const termsRange = grid === 'short' ? [5, 10] : [3, 5, 10, 20];
const weightRange = grid === 'short' ? [0.1, 0.3] : [0.05, 0.1, 0.2, 0.3, 0.5];
for (const idfPower of [0, 1])
  for (const docs of docsRange)
    for (const terms of termsRange)
      for (const weight of weightRange)
        variants.push([
          `idf^${idfPower} docs ${docs} terms ${terms} weight ${weight}`,
          { docs, gap: 0, feedback: { terms, weight, idfPower } },
        ]);

if (grid === 'gap') {
  variants.length = 1;
  for (const gap of [0.25, 0.5, 1, 2])
    for (const docs of [3, 5])
      for (const weight of [0.1, 0.2, 0.3])
        variants.push([
          `gap ${gap} idf^1 docs ${docs} terms 10 weight ${weight}`,
          { docs, gap, feedback: { terms: 10, weight, idfPower: 1 } },
        ]);
}

if (grid === 'chosen') {
  variants.length = 1;
  variants.push(
    [
      'idf^0 docs 1 terms 20 weight 0.05',
      { docs: 1, gap: 0, feedback: { terms: 20, weight: 0.05, idfPower: 0 } },
    ],
    [
      'gap 0.5 idf^1 docs 3 terms 10 weight 0.3',
      { docs: 3, gap: 0.5, feedback: { terms: 10, weight: 0.3, idfPower: 1 } },
    ],
  );
}

const relevant = queries.map((q) => new Set(q.relevant));
process.stdout.write(`${set} ${file}: ${queries.length} queries, ${entries.length} tools\n`);
for (const [name, variant] of variants) {
  let recall = 0;
  let ndcg = 0;
  queries.forEach((query, i) => {
    const ranked = rank(query.query, variant)
      .slice(0, 10)
      .map((hit) => datasetIdOf.get(hit.id) ?? hit.id);
    recall += metrics.recallAt(ranked, relevant[i]!, 5);
    ndcg += metrics.ndcgAt(ranked, relevant[i]!, 10);
  });
  const pct = (v: number) => ((100 * v) / queries.length).toFixed(2);
  process.stdout.write(`${name.padEnd(40)} R@5 ${pct(recall)}  NDCG@10 ${pct(ndcg)}\n`);
}
