#!/usr/bin/env node
/**
 * Query decomposition and score smoothing, replayed on the lists `search-lists.ts` wrote (run it
 * first): a request that asks for several things ("… using the ingredient steak and searching for
 * nutrition information") is embedded whole and clause by clause, and each clause's nearest tools
 * join the vector list; optionally each fused score also takes a share of its nearest candidates'
 * scores (tools needed together sit close together). Every set is printed; choose on
 * `toollens-train` only.
 *
 *   npx tsx bench/tuning/search-clauses-tune.ts [--sets toollens-train,livemcpbench] [--lists lists]
 */
import path from 'node:path';
import * as metrics from '../../src/discovery/evaluation/retrieval-metrics.js';
import { fuseScores, standardScores } from '../../src/discovery/rank-fusion.js';
import { DEFAULT_SERVER_WEIGHT } from '../../src/discovery/search-defaults.js';
import { compareHits, type SearchHit } from '../../src/discovery/search-index.js';
import { toolText } from '../../src/discovery/tool-text.js';
import { createUseLiteEmbedder } from '../../src/operations/embedding/use-lite-embedder.js';
import { SqliteStateStore } from '../../src/operations/state/sqlite-state-store.js';
import { datasetEntries, loadDataset } from '../../src/sources/dataset/dataset-source.js';
import { cachingEmbedder, DEFAULT_BENCHMARKS, option, ROOT } from '../lib/common.js';
import { indexCatalog } from './search-catalog.js';
import { loadLists, SET_FILES, SET_NAMES, staged } from './search-fusion-tune.js';

/** Sentences, then clauses joined by a comma or a conjunction; parts under two words are dropped. */
export function clausesOf(query: string, conjunctions: boolean): string[] {
  const sentences = query.split(/(?<=[.!?;])\s+|\n+/);
  const parts = conjunctions
    ? sentences.flatMap((s) =>
        s.split(/,\s+(?:and\s+|then\s+|also\s+)?|\s+(?:and then|and also|as well as|and|then|also|plus)\s+/i),
      )
    : sentences;
  const kept = [
    ...new Set(parts.map((p) => p.replace(/[.!?;,]+$/, '').trim()).filter((p) => p.split(/\s+/).length >= 2)),
  ];
  return kept.length > 1 ? kept : [];
}

const sets = option('sets', SET_NAMES.join(',')).split(',');
const benchmarks = option('benchmarks', DEFAULT_BENCHMARKS);
const store = new SqliteStateStore(path.join(ROOT, '.aperture'));
const embedder = await createUseLiteEmbedder();
const queryEmbedder = cachingEmbedder(embedder, store);
const log = (line: string) => process.stderr.write(`${line}\n`);

type Variant = {
  name: string;
  rank: (input: {
    lexical: SearchHit[];
    vector: SearchHit[];
    clauses: SearchHit[][];
    lexicalClauses: SearchHit[][];
    near: (a: string, b: string) => number;
  }) => SearchHit[];
};

const shipped = (lexical: SearchHit[], vector: SearchHit[]) =>
  fuseScores([
    { hits: lexical, weight: 1 },
    { hits: vector, weight: 1 },
  ]);

/** Per tool, its best cosine over the whole query and its clauses. */
function maxCosine(vector: SearchHit[], clauses: SearchHit[][]): SearchHit[] {
  const best = new Map<string, number>();
  for (const list of [vector, ...clauses])
    for (const { id, score } of list) best.set(id, Math.max(best.get(id) ?? -1, score));
  return [...best]
    .map(([id, score]) => ({ id, score }))
    .sort(compareHits)
    .slice(0, 100);
}

/** The vector side as the whole query's standard scores plus a share of each clause's. */
function clauseSum(vector: SearchHit[], clauses: SearchHit[][], share: number): SearchHit[] {
  if (clauses.length === 0) return vector;
  return fuseScores([
    { hits: vector, weight: 1 - share },
    ...clauses.map((hits) => ({ hits, weight: share / clauses.length })),
  ]).slice(0, 100);
}

/** Each candidate's fused score plus gamma × Σ over the other top candidates of cosine^p × their score. */
function smooth(
  fused: SearchHit[],
  near: (a: string, b: string) => number,
  gamma: number,
  top: number,
  p: number,
) {
  const head = fused.slice(0, top);
  const standard = standardScores(fused.slice(0, 100));
  return fused
    .slice(0, 100)
    .map((h) => {
      let extra = 0;
      for (const other of head) {
        if (other.id === h.id) continue;
        extra += Math.max(0, near(h.id, other.id)) ** p * (standard.get(other.id) ?? 0);
      }
      return { id: h.id, score: (standard.get(h.id) ?? 0) + (gamma * extra) / Math.max(1, head.length - 1) };
    })
    .sort(compareHits);
}

const variants: Variant[] = [
  { name: 'fused by scores (shipped)', rank: ({ lexical, vector }) => shipped(lexical, vector) },
];
for (const conj of [false, true]) {
  const tag = conj ? 'clauses' : 'sentences';
  variants.push({
    name: `${tag}: max cosine`,
    rank: ({ lexical, clauses, vector }) => shipped(lexical, maxCosine(vector, conj ? clauses : [])),
  });
  for (const share of [0.25, 0.5, 0.75])
    variants.push({
      name: `${tag}: sum, clause share ${share}`,
      rank: ({ lexical, clauses, vector }) => shipped(lexical, clauseSum(vector, clauses, share)),
    });
}
for (const share of [0.25, 0.5])
  variants.push({
    name: `clauses: BM25F too, clause share ${share}`,
    rank: ({ lexical, clauses, lexicalClauses, vector }) =>
      shipped(clauseSum(lexical, lexicalClauses, share), clauseSum(vector, clauses, 0.5)),
  });
for (const share of [0.25, 0.5])
  variants.push({
    name: `clauses: BM25F only, clause share ${share}`,
    rank: ({ lexical, lexicalClauses, vector }) => shipped(clauseSum(lexical, lexicalClauses, share), vector),
  });
for (const gamma of [0.25, 0.5, 1, 2])
  for (const [top, p] of [
    [5, 1],
    [10, 1],
    [10, 4],
  ] as const)
    variants.push({
      name: `smooth γ ${gamma} top ${top} cos^${p}`,
      rank: ({ lexical, vector, near }) => smooth(shipped(lexical, vector), near, gamma, top, p),
    });

const table = new Map<string, Map<string, string>>();
for (const name of sets) {
  const lists = loadLists(name);
  if (!lists) {
    log(`${name}: no lists (run search-lists.ts)`);
    continue;
  }
  const [folder, file] = SET_FILES[name]!;
  const dataset = await loadDataset(path.join(benchmarks, folder), file);
  const { entries } = datasetEntries(dataset.tools);
  const { bm25, servers, semantic } = await indexCatalog(entries, embedder, store);
  const lexicalOf = (text: string) => {
    const serverScores = servers.scores(text);
    return bm25
      .search(text, { limit: 100 })
      .map((h) => ({
        id: h.id,
        score: h.score * (1 + DEFAULT_SERVER_WEIGHT * (serverScores.get(lists.namespaceOf.get(h.id)!) ?? 0)),
      }))
      .sort(compareHits);
  };
  const toolVectors = await semantic.vectorsOf(entries.map(({ tool }) => toolText(tool)));
  const vectorOf = new Map(entries.map(({ tool }, i) => [tool.id, toolVectors[i]!]));
  const cosine = new Map<string, number>();
  const near = (a: string, b: string) => {
    const key = a < b ? `${a}\n${b}` : `${b}\n${a}`;
    let value = cosine.get(key);
    if (value === undefined) {
      const x = vectorOf.get(a)!;
      const y = vectorOf.get(b)!;
      value = 0;
      for (let i = 0; i < x.length; i++) value += x[i]! * y[i]!;
      cosine.set(key, value);
    }
    return value;
  };
  const perVariant = variants.map(() => ({ sentences: 0, total: 0 }));
  let split = 0;
  for (let i = 0; i < lists.rows.length; i += 64) {
    const batch = lists.rows.slice(i, i + 64);
    const clauseTexts = batch.map(
      (row) => [clausesOf(row.query, false), clausesOf(row.query, true)] as const,
    );
    const flat = [...new Set(clauseTexts.flatMap(([a, b]) => [...a, ...b]))];
    const vectors = flat.length > 0 ? await queryEmbedder.embed(flat) : [];
    const vectorOfText = new Map(flat.map((t, j) => [t, vectors[j]!]));
    for (const [j, row] of batch.entries()) {
      const [sentences, clauses] = clauseTexts[j]!;
      if (clauses.length > 0) split++;
      const listsOf = async (texts: readonly string[]) =>
        Promise.all(texts.map((t) => semantic.search(vectorOfText.get(t)!, { limit: 100 })));
      const sentenceLists = await listsOf(sentences);
      const clauseLists = await listsOf(clauses);
      const lexical = staged(row, lists.namespaceOf);
      const lexicalClauses = clauses.map(lexicalOf);
      const vector = row.vector.map(([id, score]) => ({ id, score }));
      const relevant = new Set(row.relevant);
      variants.forEach((variant, v) => {
        const useSentences = variant.name.startsWith('sentences');
        const ranked = variant
          .rank({
            lexical,
            vector,
            clauses: useSentences ? sentenceLists : clauseLists,
            lexicalClauses,
            near,
          })
          .slice(0, 10)
          .map((h) => lists.datasetOf.get(h.id) ?? h.id);
        perVariant[v]!.total +=
          name === 'livemcpbench'
            ? metrics.ndcgAt(ranked, relevant, 10)
            : metrics.recallAt(ranked, relevant, 5);
      });
    }
  }
  log(`${name}: ${lists.rows.length} queries, ${split} split into clauses`);
  variants.forEach((variant, v) => {
    const row = table.get(variant.name) ?? new Map<string, string>();
    row.set(name, ((100 * perVariant[v]!.total) / lists.rows.length).toFixed(1));
    table.set(variant.name, row);
  });
  semantic.close();
}
const names = sets.filter((s) => [...table.values()][0]?.has(s));
const header = ['variant', ...names.map((n) => (n === 'livemcpbench' ? `${n} NDCG@10` : `${n} R@5`))];
process.stdout.write(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|\n`);
for (const [variant, cells] of table)
  process.stdout.write(`| ${variant} | ${names.map((n) => cells.get(n) ?? '—').join(' | ')} |\n`);
store.close();
