#!/usr/bin/env node
/**
 * Tunes the BM25F parameters (k1, per-field b, per-field boosts) by coordinate search, in process
 * on the modules of src/, on the ToolLens **training** queries only (`toollens/queries_train.jsonl`;
 * every other query file of the benchmarks is a test set: never tune on it). Prints each step and
 * the best parameters found, ready to paste into `src/discovery/bm25-defaults.ts`.
 *
 *   npx tsx bench/tuning/search-tune.ts [--benchmarks DIR] [--sample N] [--rounds 3] [--objective R@5]
 *   npx tsx bench/tuning/search-tune.ts --evaluate-only          # the current defaults on the train split
 *   npx tsx bench/tuning/search-tune.ts --start tune.json         # go on from an earlier run's --json-out
 *   npx tsx bench/tuning/search-tune.ts --unbounded               # no box (only name ≥ 1): overfits ToolLens
 *
 * `--benchmarks` is the folder holding the converted benchmarks (default `../shared/benchmarks/
 * tool-retrieval` beside the repository, or BENCH_BENCHMARKS). `--sample N` tunes on N evenly
 * spaced training queries (faster; the final figures are always over the full split).
 * `--objective` is a metric name (R@5, NDCG@10, MRR, …) or two joined by `+` (their mean).
 * The machine is shared: one process, no workers.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { TOOL_FIELDS } from '../../src/discovery/tool-fields.js';
import { DEFAULT_BENCHMARKS, flag, option, runIfMain } from '../lib/common.js';

// The fields of the index itself, so the tuner never drifts from them.
// `learned` is left out: it is empty until search learns from use (tuned by search-hybrid-tune.ts).
const FIELDS = TOOL_FIELDS.filter((field) => field !== 'learned');
// The description boost stays 1: the scale of the boosts is what k1 is measured against.
const REFERENCE_FIELD = 'description';
/**
 * Where the search starts: the weights of the first BM25 (untuned, chosen by judgement), which
 * the bounds below are drawn around.
 */
const PRIOR = {
  k1: 1.2,
  b: Object.fromEntries(FIELDS.map((field) => [field, 0.75])),
  boosts: {
    name: 3,
    namespace: 2,
    title: 2,
    description: 1,
    tags: 1.5,
    paramNames: 1,
    paramDescriptions: 0.5,
    enumValues: 0.5,
  },
};
/**
 * The box the search stays in: [min, max] per coordinate (docs/SEARCH.md, "Tuning"). ToolLens is
 * one corpus of 464 RapidAPI tools whose training and test queries share those tools, so an
 * unbounded search fits its quirks: its parameter names are specific ("ingredient",
 * "latitude"), its tool names are endpoint labels ("Suggestions", "/v1/nutrition"). Unbounded
 * (`--unbounded`: only name ≥ 1) it drove the parameter-name boost to 12 and k1 to 5, and those
 * defaults lost half of ToolBench's recall. The box encodes what holds in tool catalogs at large:
 * a name is at least as telling as the description; parameters, enum values and tags are at most
 * as telling as it; k1 and b stay within the ranges BM25 is known to work in.
 */
const BOUNDS = {
  k1: [0.6, 2],
  'boosts.name': [1, 4],
  'boosts.namespace': [0.5, 4],
  'boosts.title': [1, 4],
  'boosts.tags': [0.25, 1],
  'boosts.paramNames': [0.25, 1],
  'boosts.paramDescriptions': [0.25, 1],
  'boosts.enumValues': [0.25, 1],
  ...Object.fromEntries(FIELDS.map((field) => [`b.${field}`, [0.25, 1]])),
};
const UNBOUNDED = { 'boosts.name': [1, Number.POSITIVE_INFINITY] };
const K1_VALUES = [0.3, 0.6, 0.9, 1.2, 1.5, 2, 3, 4, 5, 6, 8, 12];
const B_VALUES = [0, 0.2, 0.25, 0.4, 0.5, 0.6, 0.75, 0.9, 1];
const BOOST_FACTORS = [0, 0.25, 0.5, 0.75, 1.5, 2, 4];

async function loadModules() {
  const [index, dataset, metrics] = await Promise.all([
    import('../../src/discovery/bm25-index.js'),
    import('../../src/sources/dataset/dataset-source.js'),
    import('../../src/discovery/evaluation/retrieval-metrics.js'),
  ]);
  return { ...index, ...dataset, ...metrics };
}

/**
 * Loads a dataset once and returns `evaluate(options)`, which builds a fresh Bm25Index with
 * `options` and scores every query (metrics in percent, as `aperture eval` reports them).
 */
export async function makeEvaluator({ dir, queries, sample }: any) {
  const lib = await loadModules();
  const dataset = await lib.loadDataset(dir, queries);
  let list = dataset.queries;
  if (sample && sample < list.length) {
    const step = list.length / sample;
    list = Array.from({ length: sample }, (_, i) => list[Math.floor(i * step)]!);
  }
  const { entries, datasetIdOf } = lib.datasetEntries(dataset.tools);
  const tools = entries.map((entry) => entry.tool);
  const relevant = list.map((q) => new Set(q.relevant));
  const evaluate = (options: any = {}) => {
    const index = new lib.Bm25Index(options);
    for (const tool of tools) index.upsert(tool);
    const sums: Record<string, number> = {
      'R@1': 0,
      'R@5': 0,
      'R@10': 0,
      'NDCG@5': 0,
      'NDCG@10': 0,
      'COMP@5': 0,
      MRR: 0,
    };
    for (const [i, query] of list.entries()) {
      const ranked = index.search(query.query, { limit: 10 }).map((hit) => datasetIdOf.get(hit.id) ?? hit.id);
      const rel = relevant[i]!;
      sums['R@1']! += lib.recallAt(ranked, rel, 1);
      sums['R@5']! += lib.recallAt(ranked, rel, 5);
      sums['R@10']! += lib.recallAt(ranked, rel, 10);
      sums['NDCG@5']! += lib.ndcgAt(ranked, rel, 5);
      sums['NDCG@10']! += lib.ndcgAt(ranked, rel, 10);
      sums['COMP@5']! += lib.completenessAt(ranked, rel, 5);
      sums.MRR! += lib.reciprocalRank(ranked, rel);
    }
    const n = Math.max(1, list.length);
    return Object.fromEntries(Object.entries<any>(sums).map(([k, v]) => [k, (v / n) * 100]));
  };
  return { evaluate, defaults: lib.BM25_DEFAULTS, queries: list.length, tools: tools.length };
}

function objectiveOf(name: string) {
  const parts = name.split('+');
  return (metrics: any) => parts.reduce((sum: any, part: any) => sum + metrics[part], 0) / parts.length;
}

/** Parameters as a flat list of named coordinates, each with its candidate values. */
function coordinates(params: any, bounds: any) {
  const coords: { key: string; values: (current?: any) => number[] }[] = [
    { key: 'k1', values: () => K1_VALUES },
  ];
  for (const field of FIELDS) {
    if (field !== REFERENCE_FIELD) {
      coords.push({
        key: `boosts.${field}`,
        values: (current: any) => {
          const base = current > 0 ? current : 1;
          return [...new Set([0, ...BOOST_FACTORS.map((f) => round(base * f)), 1])].sort((a, b) => a - b);
        },
      });
    }
    coords.push({ key: `b.${field}`, values: () => B_VALUES });
  }
  return coords
    .filter((c) => get(params, c.key) !== undefined)
    .map((c) => ({
      ...c,
      values: (current: any) => {
        const [min, max] = bounds[c.key] ?? [0, Number.POSITIVE_INFINITY];
        // The bounds are candidates too, so that a coordinate can sit on its edge.
        const edges = [min, max].filter((v) => Number.isFinite(v) && v > 0);
        return [...new Set([...c.values(current), ...edges])]
          .filter((v) => v >= min && v <= max)
          .sort((x, y) => x - y);
      },
    }));
}

const round = (v: any) => Math.round(v * 1000) / 1000;
const get = (params: any, key: any) => key.split('.').reduce((o: any, k: any) => o?.[k], params);
function set(params: any, key: any, value: any) {
  const copy = structuredClone(params);
  const parts = key.split('.');
  let o = copy;
  for (const part of parts.slice(0, -1)) o = o[part];
  o[parts.at(-1)] = value;
  return copy;
}

export async function run() {
  const benchmarks = option('benchmarks', DEFAULT_BENCHMARKS);
  const sample = option('sample', 0);
  const rounds = option('rounds', 3);
  const objectiveName = option('objective', 'R@5');
  const minGain = option('min-gain', 0.02);
  const objective = objectiveOf(objectiveName);
  const dir = path.join(benchmarks, 'toollens');
  const { evaluate, defaults, queries, tools } = await makeEvaluator({
    dir,
    queries: 'queries_train.jsonl',
    sample,
  });
  const log = (line: any) => process.stderr.write(`${line}\n`);
  log(`search-tune: ${tools} tools, ${queries} ToolLens training queries, objective ${objectiveName}`);
  // `--start FILE`: go on from the parameters of an earlier run (its `--json-out`, or just params).
  const startFile = option('start', '');
  const started = startFile ? JSON.parse(readFileSync(startFile, 'utf8')) : undefined;
  const evaluateOnly = flag('evaluate-only');
  const bounds = flag('unbounded') ? UNBOUNDED : BOUNDS;
  let params = evaluateOnly
    ? { k1: defaults.k1, b: { ...defaults.b }, boosts: { ...defaults.boosts } }
    : (started?.params ?? started ?? structuredClone(PRIOR));
  if (!evaluateOnly) {
    // Start inside the box.
    for (const [key, [min, max]] of Object.entries<any>(bounds)) {
      const value = get(params, key);
      if (value !== undefined) params = set(params, key, Math.min(max, Math.max(min, value)));
    }
  }
  const start = performance.now();
  let evaluations = 0;
  const score = (p: any) => {
    evaluations++;
    const metrics = evaluate(p);
    return { metrics, value: objective(metrics) };
  };
  let best = score(params);
  const initial = best;
  log(`start: ${objectiveName} ${best.value.toFixed(2)} (${JSON.stringify(params)})`);
  if (evaluateOnly) return { objective: objectiveName, queries, params, initial, best, steps: [] };
  const steps: any[] = [];
  for (let r = 1; r <= rounds; r++) {
    let changed = false;
    for (const coord of coordinates(params, bounds)) {
      const current = get(params, coord.key);
      let bestValue = current;
      for (const value of coord.values(current)) {
        if (value === current) continue;
        const tried = score(set(params, coord.key, value));
        if (tried.value > best.value + minGain) {
          best = tried;
          bestValue = value;
        }
      }
      if (bestValue !== current) {
        params = set(params, coord.key, bestValue);
        changed = true;
        steps.push({ round: r, key: coord.key, from: current, to: bestValue, value: best.value });
        log(
          `  round ${r}: ${coord.key} ${current} → ${bestValue}: ${objectiveName} ${best.value.toFixed(2)}`,
        );
      }
    }
    log(`round ${r} done: ${objectiveName} ${best.value.toFixed(2)}, ${evaluations} evaluations`);
    if (!changed) break;
  }
  return {
    objective: objectiveName,
    queries,
    evaluations,
    seconds: (performance.now() - start) / 1000,
    initial,
    best,
    params,
    steps,
  };
}

export function render(results: any) {
  const fmt = (m: any) =>
    Object.entries<any>(m)
      .map(([k, v]) => `${k} ${v.toFixed(2)}`)
      .join(', ');
  return [
    `## BM25F tuning on ToolLens train (${results.queries} queries, objective ${results.objective})`,
    '',
    `- start: ${fmt(results.initial.metrics)}`,
    `- best:  ${fmt(results.best.metrics)}`,
    results.evaluations ? `- ${results.evaluations} evaluations in ${results.seconds.toFixed(0)} s` : '',
    '',
    '```json',
    JSON.stringify(results.params, null, 2),
    '```',
  ].join('\n');
}

runIfMain(import.meta.url, run, render);
