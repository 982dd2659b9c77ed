#!/usr/bin/env node
/**
 * An experiment, not part of the build: does the poisoning detector's learned signal tell attacks
 * from real servers' prose better with sentence EMBEDDINGS (the built-in Universal Sentence
 * Encoder lite, 512 dimensions) than with hashed words alone? Measured on the same cross
 * validation as scripts/train-poisoning-model.ts: each round of attacks and hard negatives held
 * out in turn, and each real server held out in turn; the rules as committed beside the model.
 *
 *   npx tsx scripts/poisoning-embedding-experiment.ts
 *
 * The sentences are embedded once and cached in bench/data/poisoning-embeddings.json
 * (git-ignored; delete it to re-embed). Fixed before any held-out figure was read:
 *
 * - variants: the embedding alone, and the embedding beside the shipped hashed words (weight decay
 *   3e-3 for the words as shipped); the embedding part with a per-step weight decay of 1e-5 or
 *   1e-6 (the words' 3e-3, applied to 512 dense weights at every step, would erase them). Same
 *   two-pass training as the shipped model (each attack's most suspect sentences stay positive),
 *   same benign sets, same five-word minimum.
 * - thresholds: the shipped 0.95; and one chosen inside each fold from the training part only:
 *   the lowest of 0.5…0.99 at which the fold's model flags no benign training tool in-sample
 *   (0.99 when none is that clean).
 * - what could ship: only the embedding beside the words at decay 1e-5 with the in-fold threshold
 *   ("EW 1e-5, in-fold"). The other rows are for information: picking the best of them would be
 *   a choice made on the held-out figures.
 *
 * Result (docs/SECURITY.md, "Sentence embeddings"): no variant reached both goals; not shipped.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sentenceFeatures } from '../src/catalog/trust/intent-model.js';
import { createPoisoningDetector, isFlagged } from '../src/catalog/trust/poisoning-detector.js';
import { createUseLiteEmbedder } from '../src/operations/embedding/use-lite-embedder.js';
import { corpusExamples, type Example } from './train-poisoning-model.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = path.join(ROOT, 'bench/data/poisoning-embeddings.json');
const BUCKETS = 1 << 14;
const EPOCHS = 30;
const RATE = 0.5;
const WORD_L2 = 3e-3;
const DIM = 512;
const MIN_WORDS = 5;
const GRID = [0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.93, 0.95, 0.97, 0.99];

interface Variant {
  name: string;
  words: boolean;
  embedding: boolean;
  embedL2: number;
}
const VARIANTS: Variant[] = [
  { name: 'EW 1e-5', words: true, embedding: true, embedL2: 1e-5 },
  { name: 'EW 1e-6', words: true, embedding: true, embedL2: 1e-6 },
  { name: 'E 1e-5', words: false, embedding: true, embedL2: 1e-5 },
  { name: 'E 1e-6', words: false, embedding: true, embedL2: 1e-6 },
  { name: 'W (shipped words, for reference)', words: true, embedding: false, embedL2: 0 },
];

const wordCounts = new Map<string, number>();
const wordCount = (s: string) => {
  let n = wordCounts.get(s);
  if (n === undefined) {
    n = (sentenceFeatures(s, BUCKETS).length + 1) / 2;
    wordCounts.set(s, n);
  }
  return n;
};

async function embedAll(texts: string[]): Promise<Map<string, Float32Array>> {
  const cached: Record<string, string> = existsSync(CACHE) ? JSON.parse(readFileSync(CACHE, 'utf8')) : {};
  const missing = texts.filter((t) => cached[t] === undefined);
  if (missing.length > 0) {
    const embedder = await createUseLiteEmbedder();
    const started = performance.now();
    for (let i = 0; i < missing.length; i += 64) {
      const batch = missing.slice(i, i + 64);
      const vectors = await embedder.embed(batch);
      batch.forEach((t, j) => {
        cached[t] = Buffer.from((vectors[j] as Float32Array).buffer).toString('base64');
      });
      if (i % 640 === 0) console.error(`embedded ${i + batch.length} of ${missing.length}`);
    }
    const ms = performance.now() - started;
    console.log(
      `embedding: ${missing.length} sentences in ${ms.toFixed(0)} ms (${(ms / missing.length).toFixed(2)} ms a sentence)`,
    );
    mkdirSync(path.dirname(CACHE), { recursive: true });
    writeFileSync(CACHE, JSON.stringify(cached));
  }
  const out = new Map<string, Float32Array>();
  for (const t of texts) {
    const b = Buffer.from(cached[t] as string, 'base64');
    out.set(t, new Float32Array(b.buffer, b.byteOffset, DIM));
  }
  return out;
}

interface Instance {
  text: string;
  label: number;
}
interface Model {
  bias: number;
  words: Float64Array;
  embed: Float64Array;
}

function makeScorer(variant: Variant, vectors: Map<string, Float32Array>) {
  const featureCache = new Map<string, number[]>();
  const feats = (s: string) => {
    let f = featureCache.get(s);
    if (!f) {
      f = variant.words ? sentenceFeatures(s, BUCKETS) : [];
      featureCache.set(s, f);
    }
    return f;
  };
  const logit = (m: Model, s: string) => {
    let z = m.bias;
    const f = feats(s);
    if (f.length > 0) {
      const scale = 1 / Math.sqrt(f.length);
      for (const k of f) z += (m.words[k] as number) * scale;
    }
    if (variant.embedding) {
      const v = vectors.get(s) as Float32Array;
      for (let i = 0; i < DIM; i++) z += (m.embed[i] as number) * (v[i] as number);
    }
    return z;
  };
  const score = (m: Model, s: string) => (wordCount(s) < MIN_WORDS ? 0 : 1 / (1 + Math.exp(-logit(m, s))));

  function fitModel(instances: Instance[]): Model {
    const m: Model = { bias: 0, words: new Float64Array(BUCKETS), embed: new Float64Array(DIM) };
    const positives = instances.filter((i) => i.label === 1).length;
    const negatives = instances.length - positives;
    const classWeight = [
      instances.length / (2 * Math.max(1, negatives)),
      instances.length / (2 * Math.max(1, positives)),
    ];
    const order = instances.map((_, i) => i);
    let state = 1;
    const random = () => {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      return state / 2 ** 32;
    };
    for (let epoch = 0; epoch < EPOCHS; epoch++) {
      for (let i = order.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [order[i], order[j]] = [order[j] as number, order[i] as number];
      }
      const rate = RATE / (1 + epoch * 0.2);
      for (const index of order) {
        const { text, label } = instances[index] as Instance;
        const f = feats(text);
        if (f.length === 0 && !variant.embedding) continue;
        const p = 1 / (1 + Math.exp(-logit(m, text)));
        const g = (p - label) * (classWeight[label] as number) * rate;
        m.bias -= g * 0.1;
        if (f.length > 0) {
          const scale = 1 / Math.sqrt(f.length);
          for (const k of f) m.words[k] = (m.words[k] as number) * (1 - rate * WORD_L2) - g * scale;
        }
        if (variant.embedding) {
          const v = vectors.get(text) as Float32Array;
          const decay = 1 - rate * variant.embedL2;
          for (let i = 0; i < DIM; i++) m.embed[i] = (m.embed[i] as number) * decay - g * (v[i] as number);
        }
      }
    }
    return m;
  }

  /** The shipped script's two passes: then only each attack's most suspect sentences stay positive. */
  function train(examples: Example[]): Model {
    const negatives = examples
      .filter((e) => !e.malicious)
      .flatMap((e) => e.sentences.map((text) => ({ text, label: 0 })));
    const malicious = examples.filter((e) => e.malicious);
    const first = fitModel([
      ...negatives,
      ...malicious.flatMap((e) => e.sentences.map((text) => ({ text, label: 1 }))),
    ]);
    const raw = (s: string) => 1 / (1 + Math.exp(-logit(first, s)));
    const positives = malicious.flatMap((e) => {
      const scored = e.sentences.map((s) => ({ s, p: raw(s) })).sort((a, b) => b.p - a.p);
      const best = scored[0]?.p ?? 0;
      return scored
        .filter((x, i) => i === 0 || x.p >= Math.max(0.5, best - 0.3))
        .map((x) => ({ text: x.s, label: 1 }));
    });
    return fitModel([...negatives, ...positives]);
  }
  const toolScore = (m: Model, e: Example) => Math.max(0, ...e.sentences.map((s) => score(m, s)));
  return { train, toolScore };
}

interface Tally {
  caught: number;
  hard: string[];
  real: string[];
}

async function main(): Promise<void> {
  const examples = corpusExamples();
  const texts = [...new Set(examples.flatMap((e) => e.sentences))];
  const vectors = await embedAll(texts);
  const rules = createPoisoningDetector({ intentModel: null });
  const ruleFlag = new Map(examples.map((e) => [e.id, isFlagged(rules(e.tool))]));
  const groups = [...new Set(examples.map((e) => e.group))].filter((g) => g >= 0).sort((a, b) => a - b);
  const serverOf = (e: Example) => e.id.slice(0, e.id.lastIndexOf(':'));
  const realIds = new Set(
    (
      JSON.parse(readFileSync(path.join(ROOT, 'test/fixtures/trust/real-servers/tools.json'), 'utf8')) as {
        id: string;
      }[]
    ).map((e) => e.id),
  );
  const servers = [...new Set(examples.filter((e) => realIds.has(e.id)).map(serverOf))];
  const malicious = examples.filter((e) => e.malicious).length;
  console.log(
    `${examples.length} examples, ${texts.length} distinct sentences, ${groups.length} rounds, ${servers.length} servers`,
  );
  console.log(
    '| variant | threshold | attacks caught, CV (of 145) | real tools flagged, server held out (of 402) | hard negatives flagged, round held out |',
  );
  console.log('|---|---|---|---|---|');
  const only = process.argv.slice(2);
  for (const variant of VARIANTS.filter((_, i) => only.length === 0 || only.includes(String(i)))) {
    const { train, toolScore } = makeScorer(variant, vectors);
    const fixed: Tally = { caught: 0, hard: [], real: [] };
    const inFold: Tally = { caught: 0, hard: [], real: [] };
    const chosen: number[] = [];
    const started = performance.now();
    /** The in-fold threshold: the lowest of the grid flagging no benign training tool in-sample. */
    const foldThreshold = (train: Example[], m: Model) => {
      const worst = Math.max(0, ...train.filter((e) => !e.malicious).map((e) => toolScore(m, e)));
      const t = GRID.find((g) => g > worst) ?? 0.99;
      chosen.push(t);
      return t;
    };
    const judge = (held: Example[], trainSet: Example[], m: Model, only: 'rounds' | 'real') => {
      const t = foldThreshold(trainSet, m);
      for (const [tally, threshold] of [
        [fixed, 0.95],
        [inFold, t],
      ] as const) {
        for (const e of held) {
          const flagged = ruleFlag.get(e.id) || toolScore(m, e) >= threshold;
          if (!flagged) continue;
          if (only === 'real') tally.real.push(e.id);
          else if (e.malicious) tally.caught++;
          else tally.hard.push(e.id);
        }
      }
    };
    for (const group of groups) {
      const trainSet = examples.filter((e) => e.group !== group);
      judge(
        examples.filter((e) => e.group === group),
        trainSet,
        train(trainSet),
        'rounds',
      );
      console.error(
        `${variant.name}: round ${group} done, ${((performance.now() - started) / 1000).toFixed(0)} s`,
      );
    }
    for (const server of servers) {
      const isHeld = (e: Example) => realIds.has(e.id) && serverOf(e) === server;
      const trainSet = examples.filter((e) => !isHeld(e));
      judge(examples.filter(isHeld), trainSet, train(trainSet), 'real');
    }
    console.error(`${variant.name}: real servers done`);
    const seconds = ((performance.now() - started) / 1000).toFixed(0);
    const list = (ids: string[]) =>
      `${ids.length}${ids.length ? ` (${ids.slice(0, 6).join(', ')}${ids.length > 6 ? ', …' : ''})` : ''}`;
    console.log(`| ${variant.name} | 0.95 | ${fixed.caught} | ${list(fixed.real)} | ${list(fixed.hard)} |`);
    console.log(
      `| ${variant.name} | in-fold (${[...new Set(chosen)].sort().join('/')}) | ${inFold.caught} | ${list(inFold.real)} | ${list(inFold.hard)} |`,
    );
    console.error(`${variant.name}: ${seconds} s, ${malicious} attacks`);
  }
}

await main();
