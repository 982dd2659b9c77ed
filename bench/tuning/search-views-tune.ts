#!/usr/bin/env node
/**
 * Tool vectors from more than one text (not shipped): beside the embedded tool text
 * (`tool-text.ts`), a short view — the name in words and the description's first 300 characters —
 * embedded too; a tool's cosine is then the full text's, the short view's, their maximum or their
 * mean, and the vector list so made is fused with BM25F by scores as shipped. Replays the lists
 * `search-lists.ts` wrote (their BM25F side, and their cached query vectors).
 *
 *   npx tsx bench/tuning/search-views-tune.ts [--benchmarks DIR] [--sets toollens-train,...]
 */
import path from 'node:path';
import * as metrics from '../../src/discovery/evaluation/retrieval-metrics.js';
import { fuseScores } from '../../src/discovery/rank-fusion.js';
import { compareHits, type SearchHit } from '../../src/discovery/search-index.js';
import { toolText } from '../../src/discovery/tool-text.js';
import { createUseLiteEmbedder } from '../../src/operations/embedding/use-lite-embedder.js';
import { SqliteStateStore } from '../../src/operations/state/sqlite-state-store.js';
import { datasetEntries, loadDataset } from '../../src/sources/dataset/dataset-source.js';
import { cachingEmbedder, DEFAULT_BENCHMARKS, option, ROOT } from '../lib/common.js';
import { loadLists, SET_FILES, SET_NAMES, staged } from './search-fusion-tune.js';

const benchmarks = option('benchmarks', DEFAULT_BENCHMARKS);
const sets = option('sets', SET_NAMES.join(',')).split(',');
const store = new SqliteStateStore(path.join(ROOT, '.aperture'));
const embedder = cachingEmbedder(await createUseLiteEmbedder(), store);
const log = (line: string) => process.stderr.write(`${line}\n`);

async function embedAll(texts: string[]): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += 64) out.push(...(await embedder.embed(texts.slice(i, i + 64))));
  return out;
}
const dot = (a: Float32Array, b: Float32Array) => {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
};
const words = (identifier: string) =>
  identifier
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_\-.:/]+/g, ' ')
    .toLowerCase()
    .trim();

const VIEWS = ['full', 'short', 'max', 'mean'] as const;
const header = ['view'];
const columns: Map<string, string>[] = [];
for (const name of sets) {
  const lists = loadLists(name);
  if (!lists) continue;
  const [dir, file] = SET_FILES[name]!;
  const tools = datasetEntries((await loadDataset(path.join(benchmarks, dir), file)).tools).entries.map(
    (e) => e.tool,
  );
  log(`${name}: embedding ${tools.length} tools twice (cached), ${lists.rows.length} queries`);
  const full = await embedAll(tools.map(toolText));
  const short = await embedAll(tools.map((t) => `${words(t.name)}. ${t.description.slice(0, 300)}`));
  const queries = await embedAll(lists.rows.map((row) => row.query));
  const metric = name === 'livemcpbench' ? 'NDCG@10' : 'R@5';
  header.push(`${name} ${metric}`);
  const column = new Map<string, string>();
  for (const view of VIEWS) {
    let total = 0;
    lists.rows.forEach((row, q) => {
      const qv = queries[q]!;
      const cosines: SearchHit[] = tools.map((tool, i) => {
        const a = dot(qv, full[i]!);
        const b = dot(qv, short[i]!);
        const score =
          view === 'full' ? a : view === 'short' ? b : view === 'max' ? Math.max(a, b) : (a + b) / 2;
        return { id: tool.id, score };
      });
      const vector = cosines.sort(compareHits).slice(0, 100);
      const ranked = fuseScores([
        { hits: staged(row, lists.namespaceOf), weight: 1 },
        { hits: vector, weight: 1 },
      ])
        .slice(0, 10)
        .map((h) => lists.datasetOf.get(h.id) ?? h.id);
      const relevant = new Set(row.relevant);
      total +=
        metric === 'R@5' ? metrics.recallAt(ranked, relevant, 5) : metrics.ndcgAt(ranked, relevant, 10);
    });
    column.set(view, ((100 * total) / lists.rows.length).toFixed(1));
  }
  columns.push(column);
}
store.close();
process.stdout.write(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|\n`);
for (const view of VIEWS)
  process.stdout.write(`| ${view} | ${columns.map((c) => c.get(view)).join(' | ')} |\n`);
