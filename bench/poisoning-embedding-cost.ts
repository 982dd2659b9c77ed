#!/usr/bin/env node
/**
 * What sentence embeddings would cost the poisoning detector, side by side with the detector as
 * shipped (rules + hashed-word model), per tool of the real servers' catalogs
 * (test/fixtures/trust/real-servers). Not part of `run-all`: it loads the built-in embedding model
 * (TensorFlow.js), which takes seconds. The figures are in docs/SECURITY.md ("Sentence embeddings").
 *
 *   npx tsx bench/poisoning-embedding-cost.ts [--runs 3]
 */
import { toolSegments } from '../src/catalog/trust/intent-model.js';
import { createPoisoningDetector } from '../src/catalog/trust/poisoning-detector.js';
import type { Tool } from '../src/foundation/model/tool.js';
import { createUseLiteEmbedder } from '../src/operations/embedding/use-lite-embedder.js';
import { realServerTools } from './lib/real-server-tools.js';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 3;
const tools = realServerTools();
// The sentences a model would score: five words or more (shorter ones score 0 in the detector).
const sentencesOf = (tool: Tool) =>
  toolSegments(tool)
    .map((s) => s.text)
    .filter((s) => s.split(/\s+/).length >= 5);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

const loadStart = performance.now();
const embedder = await createUseLiteEmbedder();
await embedder.embed(['warm the model up once before measuring']);
const loadMs = performance.now() - loadStart;

const detect = createPoisoningDetector();
const detectorMs: number[] = [];
const embedMs: number[] = [];
for (let run = 0; run < runs; run++) {
  let start = performance.now();
  for (const tool of tools) detect(tool);
  detectorMs.push((performance.now() - start) / tools.length);
  start = performance.now();
  // One call per tool, as a catalog's tools arrive (the embedder batches 8 sentences a call).
  for (const tool of tools) await embedder.embed(sentencesOf(tool));
  embedMs.push((performance.now() - start) / tools.length);
}
const sentences = tools.reduce((n, t) => n + sentencesOf(t).length, 0);
const d = median(detectorMs);
const e = median(embedMs);
console.log(
  `${tools.length} real tools, ${sentences} sentences of five words or more; median of ${runs} runs`,
);
console.log('| per tool | ms | ratio |');
console.log('|---|---|---|');
console.log(`| detector as shipped (rules + hashed words) | ${d.toFixed(3)} | 1 |`);
console.log(`| embedding the tool's sentences (USE lite) | ${e.toFixed(2)} | ${(e / d).toFixed(0)}× |`);
console.log(`model load and first call, once: ${loadMs.toFixed(0)} ms`);
