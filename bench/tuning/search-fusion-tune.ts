#!/usr/bin/env node
/**
 * Hybrid fusion, replayed on the lists `search-lists.ts` wrote (run it first): weighted
 * reciprocal-rank fusion over a range of k, weights and depths, against score fusion — a convex
 * combination of the BM25F score (after the server stage) and the cosine, each normalised per query.
 * Every set is printed; choose on `toollens-train` only.
 *
 *   npx tsx bench/tuning/search-fusion-tune.ts [--sets toollens-train,toollens-test,...] [--lists lists]
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as metrics from '../../src/discovery/evaluation/retrieval-metrics.js';
import { fuseRanks, fuseScores } from '../../src/discovery/rank-fusion.js';
import { DEFAULT_SERVER_WEIGHT } from '../../src/discovery/search-defaults.js';
import { compareHits, type SearchHit } from '../../src/discovery/search-index.js';
import { option, ROOT } from '../lib/common.js';

export interface ListRow {
  query: string;
  relevant: string[];
  bm25: [string, number][];
  servers: Record<string, number>;
  vector: [string, number][];
}
export interface Lists {
  tools: { id: string; namespace: string; dataset: string }[];
  rows: ListRow[];
}

/** Each set of `search-lists.ts`: its folder under the benchmarks and its queries file. */
export const SET_FILES: Record<string, [folder: string, queries: string]> = {
  'toollens-train': ['toollens', 'queries_train.jsonl'],
  'toollens-test': ['toollens', 'queries.jsonl'],
  livemcpbench: ['livemcpbench', 'queries.jsonl'],
  toolbench: ['toolbench-stb', 'queries.jsonl'],
  'metatool-single': ['metatool', 'queries.jsonl'],
  'metatool-multi': ['metatool', 'queries_multi.jsonl'],
};

export const SET_NAMES = Object.keys(SET_FILES);

/** The lists of one set, with each BM25F list put through the server stage as shipped. */
export function loadLists(
  name: string,
): (Lists & { namespaceOf: Map<string, string>; datasetOf: Map<string, string> }) | undefined {
  const file = path.join(ROOT, '.aperture', option('lists', 'lists'), `${name}.json`);
  if (!existsSync(file)) return undefined;
  const lists = JSON.parse(readFileSync(file, 'utf8')) as Lists;
  const namespaceOf = new Map(lists.tools.map((t) => [t.id, t.namespace]));
  const datasetOf = new Map(lists.tools.map((t) => [t.id, t.dataset]));
  return { ...lists, namespaceOf, datasetOf };
}

/** BM25F hits after the server stage (score × (1 + weight · server score)), best first. */
export function staged(
  row: ListRow,
  namespaceOf: Map<string, string>,
  weight = DEFAULT_SERVER_WEIGHT,
): SearchHit[] {
  return row.bm25
    .map(([id, score]) => ({ id, score: score * (1 + weight * (row.servers[namespaceOf.get(id)!] ?? 0)) }))
    .sort(compareHits);
}

const hitsOf = (list: [string, number][]): SearchHit[] => list.map(([id, score]) => ({ id, score }));

type Fuse = (lexical: SearchHit[], vector: SearchHit[]) => SearchHit[];

/** Convex combination of normalised scores; a tool absent from a list takes that list's floor. */
function convex(alpha: number, norm: 'max' | 'minmax' | 'z', depth = 100): Fuse {
  const normalise = (hits: SearchHit[]) => {
    const scores = hits.slice(0, depth).map((h) => h.score);
    if (scores.length === 0) return { map: new Map<string, number>(), floor: 0 };
    const max = Math.max(...scores);
    const min = Math.min(...scores);
    const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
    const sd = Math.sqrt(scores.reduce((a, b) => a + (b - mean) ** 2, 0) / scores.length) || 1;
    const f = (s: number) =>
      norm === 'max'
        ? s / max
        : norm === 'minmax'
          ? max > min
            ? (s - min) / (max - min)
            : 1
          : (s - mean) / sd;
    return { map: new Map(hits.slice(0, depth).map((h) => [h.id, f(h.score)])), floor: f(min) };
  };
  return (lexical, vector) => {
    const l = normalise(lexical);
    const v = normalise(vector);
    const ids = new Set([...l.map.keys(), ...v.map.keys()]);
    return [...ids]
      .map((id) => ({
        id,
        score:
          (1 - alpha) * (l.map.get(id) ?? (norm === 'max' ? 0 : l.floor)) +
          alpha * (v.map.get(id) ?? v.floor),
      }))
      .sort(compareHits);
  };
}

const rrf =
  (weight: number, k: number, depth = 100): Fuse =>
  (lexical, vector) =>
    fuseRanks(
      [
        { hits: lexical.slice(0, depth), weight: 1 },
        { hits: vector.slice(0, depth), weight },
      ],
      k,
    );

export async function main() {
  const sets = option('sets', SET_NAMES.join(',')).split(',');
  const variants: [string, Fuse][] = [
    ['bm25 (server stage)', (l) => l],
    ['vector alone', (_l, v) => v],
    ['rrf w 0.25 k 60 (shipped)', rrf(0.25, 60)],
  ];
  for (const k of [10, 30, 60, 100])
    for (const w of [0.25, 0.5, 0.75, 1])
      if (!(k === 60 && w === 0.25)) variants.push([`rrf w ${w} k ${k}`, rrf(w, k)]);
  for (const depth of [20, 50]) variants.push([`rrf w 0.25 k 60 depth ${depth}`, rrf(0.25, 60, depth)]);
  for (const w of [0.5, 0.75, 1, 1.25, 1.5])
    variants.push([
      `fuseScores w ${w}`,
      (l, v) =>
        fuseScores([
          { hits: l, weight: 1 },
          { hits: v, weight: w },
        ]),
    ]);
  // CombMNZ (Fox & Shaw 1994): the sum × the number of lists that hold the tool.
  for (const w of [0.75, 1, 1.25])
    variants.push([
      `fuseScores w ${w} × lists (CombMNZ)`,
      (l, v) => {
        const inLexical = new Set(l.map((h) => h.id));
        const inVector = new Set(v.map((h) => h.id));
        return fuseScores([
          { hits: l, weight: 1 },
          { hits: v, weight: w },
        ])
          .map((h) => ({
            id: h.id,
            score: h.score * (Number(inLexical.has(h.id)) + Number(inVector.has(h.id))),
          }))
          .sort(compareHits);
      },
    ]);
  // A vector weight that follows the query's best cosine, over its median on the ToolLens
  // training queries (0.578): trust the vectors more when they find something close.
  for (const power of [0.5, 1, 2, 4])
    variants.push([
      `fuseScores w (top cosine / 0.578)^${power}`,
      (l, v) =>
        fuseScores([
          { hits: l, weight: 1 },
          { hits: v, weight: ((v[0]?.score ?? 0) / 0.578) ** power },
        ]),
    ]);
  for (const depth of [20, 50, 100])
    variants.push([
      `fuseScores w 1 depth ${depth}`,
      (l, v) =>
        fuseScores([
          { hits: l.slice(0, depth), weight: 1 },
          { hits: v.slice(0, depth), weight: 1 },
        ]),
    ]);
  for (const norm of ['max', 'minmax', 'z'] as const)
    for (const alpha of [0.1, 0.2, 0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.9])
      variants.push([`convex ${norm} α ${alpha}`, convex(alpha, norm)]);

  const loaded = sets.map((name) => [name, loadLists(name)] as const).filter(([, l]) => l !== undefined);
  const header = [
    'variant',
    ...loaded.map(([name]) => (name === 'livemcpbench' ? `${name} NDCG@10` : `${name} R@5`)),
  ];
  process.stdout.write(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|\n`);
  for (const [name, fuse] of variants) {
    const cells = loaded.map(([setName, lists]) => {
      let total = 0;
      for (const row of lists!.rows) {
        const ranked = fuse(staged(row, lists!.namespaceOf), hitsOf(row.vector))
          .slice(0, 10)
          .map((h) => lists!.datasetOf.get(h.id) ?? h.id);
        const relevant = new Set(row.relevant);
        total +=
          setName === 'livemcpbench'
            ? metrics.ndcgAt(ranked, relevant, 10)
            : metrics.recallAt(ranked, relevant, 5);
      }
      return ((100 * total) / lists!.rows.length).toFixed(1);
    });
    process.stdout.write(`| ${name} | ${cells.join(' | ')} |\n`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
