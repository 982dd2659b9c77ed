#!/usr/bin/env node
/**
 * Compares English stemmers from npm for the search tokenizer: speed (ns per word, no memo, over
 * every word of the benchmark tools and 3,000 ToolLens training queries) and agreement with the
 * reference Snowball English (Porter2) port. Only `porter2` is a dependency; to measure the others,
 * install them somewhere and point `--modules` at that folder:
 *
 *   mkdir /tmp/stemmers && (cd /tmp/stemmers && npm init -y && npm i stemmer wink-porter2-stemmer \
 *     snowball-stemmers @orama/stemmers @stdlib/nlp-porter-stemmer porter2)
 *   npx tsx bench/tuning/search-stemmers.ts --modules /tmp/stemmers [--benchmarks DIR]
 *
 * Candidates that are not installed are skipped.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { splitWords } from '../../src/discovery/tokenizer.js';
import { DEFAULT_BENCHMARKS, option, ROOT, runIfMain, table } from '../lib/common.js';

/** Each candidate: npm package, the algorithm, and how to get a `(word) => stem` from it. */
const CANDIDATES: [name: string, algorithm: string, specifier: string, exportName: string][] = [
  ['porter2', 'Porter2', 'porter2', 'stem'],
  ['stemmer', 'Porter (1980)', 'stemmer', 'stemmer'],
  ['@stdlib/nlp-porter-stemmer', 'Porter (1980)', '@stdlib/nlp-porter-stemmer', 'default'],
  ['@orama/stemmers', 'Porter (1980) variant', '@orama/stemmers/english', 'stemmer'],
  ['wink-porter2-stemmer', 'Porter2', 'wink-porter2-stemmer', 'default'],
  ['snowball-stemmers', 'Porter2 (Snowball port)', 'snowball-stemmers', 'newStemmer'],
];

/** The export `name` of a module namespace, looking through a CommonJS `default` too. */
function exported(ns: any, name: string) {
  const value = ns[name] ?? ns.default?.[name];
  if (name === 'newStemmer') {
    const stemmer = value('english');
    return (word: any) => stemmer.stem(word);
  }
  return typeof value === 'function' ? value : ns.default;
}

export async function run() {
  const benchmarks = option('benchmarks', DEFAULT_BENCHMARKS);
  const modules = path.resolve(option('modules', ROOT));
  const require = createRequire(path.join(modules, 'package.json'));
  const load = async (name: string) => import(pathToFileURL(require.resolve(name)).href);

  const texts: any[] = [];
  for (const set of ['toollens', 'livemcpbench', 'toolbench-stb', 'metatool']) {
    texts.push(...readFileSync(path.join(benchmarks, set, 'tools.jsonl'), 'utf8').split('\n'));
  }
  const train = readFileSync(path.join(benchmarks, 'toollens', 'queries_train.jsonl'), 'utf8').split('\n');
  for (const line of train.slice(0, 3000)) if (line) texts.push(JSON.parse(line).query);
  const words = texts.flatMap((text) => splitWords(text)).filter((w) => /^[a-z]+$/.test(w));
  const distinct = [...new Set(words)];

  const stemmers: any[] = [];
  for (const [name, algorithm, specifier, exportName] of CANDIDATES) {
    try {
      stemmers.push({ name, algorithm, stem: exported(await load(specifier), exportName) });
    } catch {
      process.stderr.write(`search-stemmers: ${name} not installed under ${modules}; skipped\n`);
    }
  }
  const reference = stemmers.find((s) => s.name === 'snowball-stemmers');
  const rows: any[] = [];
  for (const { name, algorithm, stem } of stemmers) {
    for (const word of distinct) stem(word); // warm up
    const times: any[] = [];
    for (let r = 0; r < 5; r++) {
      const t0 = performance.now();
      for (const word of words) stem(word);
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const agree = reference ? distinct.filter((w) => stem(w) === reference.stem(w)).length : undefined;
    rows.push({ name, algorithm, nsPerWord: (times[2] / words.length) * 1e6, agree });
  }
  return { words: words.length, distinct: distinct.length, reference: reference?.name, rows };
}

export function render(results: any) {
  return [
    `## Stemmers (${results.words.toLocaleString('en-US')} words, ${results.distinct.toLocaleString('en-US')} distinct)`,
    '',
    table(
      ['package', 'algorithm', 'ns / word (median of 5)', `same stem as ${results.reference ?? 'reference'}`],
      results.rows.map((r: any) => [
        r.name,
        r.algorithm,
        r.nsPerWord.toFixed(0),
        r.agree === undefined ? 'n/a' : `${((100 * r.agree) / results.distinct).toFixed(1)}%`,
      ]),
    ),
    '',
  ].join('\n');
}

runIfMain(import.meta.url, run, render);
