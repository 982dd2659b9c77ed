#!/usr/bin/env node
/**
 * The query as the built-in model reads it: the same request embedded in other forms (lower case,
 * without the request's courtesy words, framed as a tool's description), each vector list fused
 * with BM25F as shipped. Replays the BM25F lists `search-lists.ts` wrote (run it first); the query
 * vectors are cached in `.aperture/`. Choose on `toollens-train` only.
 *
 *   npx tsx bench/tuning/search-query-form-tune.ts [--sets toollens-train,...] [--forms plain,lower,...]
 */
import path from 'node:path';
import * as metrics from '../../src/discovery/evaluation/retrieval-metrics.js';
import { fuseScores } from '../../src/discovery/rank-fusion.js';
import { createUseLiteEmbedder } from '../../src/operations/embedding/use-lite-embedder.js';
import { SqliteStateStore } from '../../src/operations/state/sqlite-state-store.js';
import { datasetEntries, loadDataset } from '../../src/sources/dataset/dataset-source.js';
import { cachingEmbedder, DEFAULT_BENCHMARKS, option, ROOT } from '../lib/common.js';
import { indexCatalog } from './search-catalog.js';
import { loadLists, SET_FILES, SET_NAMES, staged } from './search-fusion-tune.js';

/** Words that ask rather than say what is wanted, at the start of a request. */
const COURTESY =
  /^(?:(?:please|hey|hi|hello|so|ok(?:ay)?)[,!.]?\s+)*(?:(?:can|could|would|will) you(?: please)?|i(?:'d| would) like (?:you )?to|i (?:want|need|wish|have)(?: you)? to|help me(?: to)?|i'm looking to|let me|i want|i need)\s+/i;

const FORMS: Record<string, (query: string) => string> = {
  plain: (q) => q,
  lower: (q) => q.toLowerCase(),
  'without courtesy': (q) => q.replace(COURTESY, ''),
  'a tool to …': (q) => `A tool to ${q.replace(COURTESY, '')}`,
  'task: …': (q) => `Task: ${q}`,
};

const benchmarks = option('benchmarks', DEFAULT_BENCHMARKS);
const sets = option('sets', SET_NAMES.join(',')).split(',');
const forms = option('forms', Object.keys(FORMS).join(',')).split(',');
const store = new SqliteStateStore(path.join(ROOT, '.aperture'));
const embedder = await createUseLiteEmbedder();
const queryEmbedder = cachingEmbedder(embedder, store);
const log = (line: string) => process.stderr.write(`${line}\n`);

const header = ['form', ...sets.flatMap((s) => [`${s} vector`, `${s} hybrid`])];
const results = new Map<string, string[]>(forms.map((f) => [f, []]));
for (const name of sets) {
  const lists = loadLists(name);
  if (!lists) throw new Error(`no lists for ${name}: run bench/tuning/search-lists.ts first`);
  const [folder, file] = SET_FILES[name]!;
  const dataset = await loadDataset(path.join(benchmarks, folder), file);
  const { semantic } = await indexCatalog(datasetEntries(dataset.tools).entries, embedder, store);
  const metric = (ranked: string[], relevant: string[]) =>
    name === 'livemcpbench'
      ? metrics.ndcgAt(ranked, new Set(relevant), 10)
      : metrics.recallAt(ranked, new Set(relevant), 5);
  for (const form of forms) {
    const texts = lists.rows.map((row) => FORMS[form]!(row.query));
    let vectorTotal = 0;
    let hybridTotal = 0;
    for (let i = 0; i < texts.length; i += 64) {
      const vectors = await queryEmbedder.embed(texts.slice(i, i + 64));
      for (const [j, vector] of vectors.entries()) {
        const row = lists.rows[i + j]!;
        const nearest = await semantic.search(vector, { limit: 100 });
        const top = (hits: { id: string }[]) =>
          hits.slice(0, 10).map((h) => lists.datasetOf.get(h.id) ?? h.id);
        vectorTotal += metric(top(nearest), row.relevant);
        const fused = fuseScores([
          { hits: staged(row, lists.namespaceOf), weight: 1 },
          { hits: nearest, weight: 1 },
        ]);
        hybridTotal += metric(top(fused), row.relevant);
      }
    }
    const n = lists.rows.length;
    results.get(form)!.push(((100 * vectorTotal) / n).toFixed(1), ((100 * hybridTotal) / n).toFixed(1));
    log(`${name}, ${form}: done`);
  }
}
process.stdout.write(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|\n`);
for (const [form, cells] of results) process.stdout.write(`| ${form} | ${cells.join(' | ')} |\n`);
store.close();
