#!/usr/bin/env node
/**
 * Search quality on the tool-retrieval benchmarks, through the CLI exactly as a user runs it
 * (`aperture eval --json`), one set after another, against the goals of the search issue.
 * Evaluation only: tuning happens on the ToolLens training split alone (docs/SEARCH.md, "Tuning").
 *
 *   npm run build
 *   npx tsx bench/search-quality.ts [--benchmarks DIR] [--strategy bm25] [--baseline-cli FILE]
 *
 * `--baseline-cli` is the `dist/cli/main.js` of an earlier build, evaluated on the same sets for a
 * side-by-side table. The sets and samples are those of docs/SEARCH.md.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { DEFAULT_BENCHMARKS, GATEWAY_CLI, machine, option, ROOT, runIfMain, table } from './lib/common.js';

const exec = promisify(execFile);

/** The goal sets of the search issue; `metric` is the one each goal is stated in. */
export const SETS = [
  { key: 'toollens test', dir: 'toollens', args: [], metric: 'R@5', goal: 40, reference: 26.9 },
  {
    key: 'toollens train (tuning set)',
    dir: 'toollens',
    args: ['--queries', 'queries_train.jsonl'],
    metric: 'R@5',
  },
  { key: 'livemcpbench', dir: 'livemcpbench', args: [], metric: 'NDCG@10', goal: 42, reference: 36.7 },
  { key: 'toolbench-stb', dir: 'toolbench-stb', args: [], metric: 'R@5', goal: 70, reference: 68.6 },
  {
    key: 'metatool single (1,000, every n-th)',
    dir: 'metatool',
    args: ['--sample', '1000'],
    metric: 'R@5',
    goal: 65,
    reference: 53.3,
  },
  {
    key: 'metatool multi',
    dir: 'metatool',
    args: ['--queries', 'queries_multi.jsonl'],
    metric: 'R@5',
    goal: 60,
    reference: 47.4,
  },
  {
    // Hand-written requests over LiveMCPBench's real MCP tools, the way people ask: paraphrased
    // verbs, ambiguous and product-only requests, other languages, abbreviations (docs/SEARCH.md).
    key: 'people-style requests (LiveMCPBench tools)',
    dir: 'livemcpbench',
    args: ['--queries', path.join(ROOT, 'bench', 'data', 'people-requests.jsonl')],
    metric: 'MRR',
  },
];

async function evaluate(cli: any, benchmarks: any, set: any, strategy: any) {
  const { stdout } = await exec(
    process.execPath,
    [cli, 'eval', '--dataset', path.join(benchmarks, set.dir), ...set.args, '--strategy', strategy, '--json'],
    { maxBuffer: 64 * 2 ** 20 },
  );
  return JSON.parse(stdout);
}

export async function run() {
  const benchmarks = option('benchmarks', DEFAULT_BENCHMARKS);
  const strategy = option('strategy', 'bm25');
  const baselineCli = option('baseline-cli', '');
  const only = option('only', '');
  const sets = only ? SETS.filter((s) => only.split(',').includes(s.dir)) : SETS;
  const results: Record<string, any> = {
    machine: machine(),
    strategy,
    baseline: baselineCli || undefined,
    sets: [],
  };
  for (const set of sets) {
    process.stderr.write(`search-quality: ${set.key}\n`);
    const current = await evaluate(GATEWAY_CLI, benchmarks, set, strategy);
    const baseline = baselineCli
      ? await evaluate(path.resolve(baselineCli), benchmarks, set, 'bm25')
      : undefined;
    results.sets.push({ ...set, current, baseline });
  }
  return results;
}

export function render(results: any) {
  const metrics = ['R@1', 'R@5', 'R@10', 'NDCG@5', 'NDCG@10', 'COMP@5', 'MRR'];
  const rows = results.sets.map((s: any) => {
    const m = s.current.metrics;
    const main = m[s.metric];
    return [
      s.key,
      s.current.queries.toLocaleString('en-US'),
      ...metrics.map((k) => (k === s.metric ? `**${m[k].toFixed(1)}**` : m[k].toFixed(1))),
      `${s.current.latencyMs.p50} / ${s.current.latencyMs.p95}`,
      s.baseline ? `${s.metric} ${s.baseline.metrics[s.metric].toFixed(1)}` : '—',
      s.reference === undefined ? '—' : `${s.metric} ${s.reference}`,
      s.goal === undefined ? '—' : `${s.metric} ≥ ${s.goal}: ${main >= s.goal ? '**met**' : 'not met'}`,
    ];
  });
  return [
    `## Search quality (${results.strategy}, ${results.machine.git}, ${results.machine.date.slice(0, 10)})`,
    '',
    table(
      ['set', 'queries', ...metrics, 'p50 / p95 ms', 'previous build', 'plain BM25 reference', 'goal'],
      rows,
    ),
    '',
  ].join('\n');
}

runIfMain(import.meta.url, run, render);
