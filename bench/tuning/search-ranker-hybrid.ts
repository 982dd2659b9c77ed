#!/usr/bin/env node
/**
 * The learned ranker again, now over hybrid candidates with the built-in model's similarity among
 * its features: a logistic regression (class-balanced, L2) re-ranks the top `depth` of the
 * score-fused list. Trained on the even lines of the ToolLens **training** lists, measured on the
 * odd ones, then zero-shot on every other set. Reads the lists `search-lists.ts` wrote; the
 * per-field BM25F parts come from `Bm25Index.explain` on each set's tools.
 *
 *   npx tsx bench/tuning/search-ranker-hybrid.ts [--benchmarks DIR] [--depth 30] [--without field,tool]
 *
 * Feature groups (for `--without`, by name prefix): `list:` (each list's standard score, rank,
 * the fused score and rank, the cosine), `server`, `field:` (BM25F's part per field), `tool:`
 * (query terms matched, description length, parameter count).
 */
import path from 'node:path';
import { Bm25Index } from '../../src/discovery/bm25-index.js';
import * as metrics from '../../src/discovery/evaluation/retrieval-metrics.js';
import { fuseScores, standardScores } from '../../src/discovery/rank-fusion.js';
import { DEFAULT_SCORE_FUSION_WEIGHT } from '../../src/discovery/search-defaults.js';
import type { SearchHit } from '../../src/discovery/search-index.js';
import { tokenize } from '../../src/discovery/tokenizer.js';
import { TOOL_FIELDS } from '../../src/discovery/tool-fields.js';
import type { Tool } from '../../src/foundation/tool.js';
import { datasetEntries, loadDataset } from '../../src/sources/dataset/dataset-source.js';
import { DEFAULT_BENCHMARKS, option } from '../lib/common.js';
import { type Example, score, trainLogistic } from './logistic-regression.js';
import { type ListRow, loadLists, staged } from './search-fusion-tune.js';

const SETS: Record<string, [dir: string, file: string, metric: 'R@5' | 'NDCG@10']> = {
  'toollens-train': ['toollens', 'queries_train.jsonl', 'R@5'],
  'toollens-test': ['toollens', 'queries.jsonl', 'R@5'],
  livemcpbench: ['livemcpbench', 'queries.jsonl', 'NDCG@10'],
  toolbench: ['toolbench-stb', 'queries.jsonl', 'R@5'],
  'metatool-single': ['metatool', 'queries.jsonl', 'R@5'],
  'metatool-multi': ['metatool', 'queries_multi.jsonl', 'R@5'],
};
const FIELDS = TOOL_FIELDS.filter((field) => field !== 'learned');
const FEATURES = [
  'list:lexical standard',
  'list:vector standard',
  'list:cosine',
  'list:lexical rank⁻¹',
  'list:vector rank⁻¹',
  'list:fused / top',
  'list:fused rank⁻¹',
  'server',
  ...FIELDS.map((f) => `field:${f}`),
  'tool:query terms matched',
  'tool:log description length',
  'tool:parameters',
  'bias',
];
const WITHOUT = option('without', '').split(',').filter(Boolean);
const used = FEATURES.map((f) => f === 'bias' || !WITHOUT.some((prefix) => f.startsWith(prefix)));
const depth = option('depth', 30);
const benchmarks = option('benchmarks', DEFAULT_BENCHMARKS);

interface Candidate {
  id: string;
  x: number[];
}

async function prepare(name: string) {
  const lists = loadLists(name);
  if (!lists) throw new Error(`no lists for ${name}: run bench/tuning/search-lists.ts first`);
  const [dir, file] = SETS[name]!;
  const { entries } = datasetEntries((await loadDataset(path.join(benchmarks, dir), file)).tools);
  const index = new Bm25Index({ exactMatchBoost: false });
  const byId = new Map<string, Tool>();
  for (const { tool } of entries) {
    index.upsert(tool);
    byId.set(tool.id, tool);
  }
  const candidates = (row: ListRow): Candidate[] => {
    const lexical = staged(row, lists.namespaceOf);
    const vector: SearchHit[] = row.vector.map(([id, score]) => ({ id, score }));
    const fused = fuseScores([
      { hits: lexical, weight: 1 },
      { hits: vector, weight: DEFAULT_SCORE_FUSION_WEIGHT },
    ]).slice(0, depth);
    const lexicalStandard = standardScores(lexical);
    const vectorStandard = standardScores(vector);
    const lexicalRank = new Map(lexical.map((h, i) => [h.id, i + 1]));
    const vectorRank = new Map(vector.map((h, i) => [h.id, i + 1]));
    const cosine = new Map(row.vector);
    const floorCosine = row.vector.at(-1)?.[1] ?? 0;
    const topLexical = lexical[0]?.score || 1;
    const topFused = fused[0]?.score || 1;
    const terms = new Set(tokenize(row.query));
    return fused.map((hit, i) => {
      const tool = byId.get(hit.id)!;
      const e = index.explain(row.query, hit.id)!;
      const props = tool.inputSchema.properties;
      const x = [
        lexicalStandard.get(hit.id) ?? 0,
        vectorStandard.get(hit.id) ?? 0,
        cosine.get(hit.id) ?? floorCosine,
        1 / (lexicalRank.get(hit.id) ?? Number.POSITIVE_INFINITY),
        1 / (vectorRank.get(hit.id) ?? Number.POSITIVE_INFINITY),
        hit.score / topFused,
        1 / (i + 1),
        row.servers[tool.namespace] ?? 0,
        ...FIELDS.map((f) => (e.fields[f] ?? 0) / topLexical),
        terms.size ? Object.keys(e.terms).length / terms.size : 0,
        Math.log1p(tool.description.length) / 8,
        Math.min(props && typeof props === 'object' ? Object.keys(props).length : 0, 20) / 20,
        1,
      ];
      return { id: hit.id, x };
    });
  };
  return { lists, rows: lists.rows.map((row) => ({ row, candidates: candidates(row) })) };
}

const dot = (w: number[], x: number[]) => score(w, x, used);

const train = (rows: Example[]) => trainLogistic(rows, used, 400);

function measure(
  set: Awaited<ReturnType<typeof prepare>>,
  rows: typeof set.rows,
  metric: 'R@5' | 'NDCG@10',
  w: number[],
) {
  let base = 0;
  let ranked = 0;
  for (const { row, candidates } of rows) {
    const relevant = new Set(row.relevant);
    const ids = (list: Candidate[]) => list.map((c) => set.lists.datasetOf.get(c.id) ?? c.id);
    const m = (list: string[]) =>
      metric === 'R@5' ? metrics.recallAt(list, relevant, 5) : metrics.ndcgAt(list, relevant, 10);
    base += m(ids(candidates));
    ranked += m(ids([...candidates].sort((a, b) => dot(w, b.x) - dot(w, a.x))));
  }
  const pct = (v: number) => ((100 * v) / rows.length).toFixed(1);
  return `${pct(base)} → ${pct(ranked)}`;
}

const trainSet = await prepare('toollens-train');
const fit = trainSet.rows.filter((_, i) => i % 2 === 0);
const held = trainSet.rows.filter((_, i) => i % 2 === 1);
const examples: { x: number[]; y: number }[] = [];
for (const { row, candidates } of fit) {
  const relevant = new Set(row.relevant);
  for (const c of candidates)
    examples.push({ x: c.x, y: relevant.has(trainSet.lists.datasetOf.get(c.id) ?? c.id) ? 1 : 0 });
}
const w = train(examples);
process.stdout.write(`without: ${WITHOUT.join(',') || 'nothing'}\n`);
process.stdout.write(
  `${FEATURES.map((f, i) => (used[i] ? `  ${f} ${w[i]!.toFixed(3)}` : ''))
    .filter(Boolean)
    .join('\n')}\n`,
);
process.stdout.write(
  `toollens-train held-out half (${held.length}) R@5: ${measure(trainSet, held, 'R@5', w)}\n`,
);
for (const name of Object.keys(SETS).slice(1)) {
  if (!loadLists(name)) continue;
  const set = await prepare(name);
  process.stdout.write(`${name} ${SETS[name]![2]}: ${measure(set, set.rows, SETS[name]![2], w)}\n`);
}
