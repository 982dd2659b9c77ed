#!/usr/bin/env node
/**
 * Generates `src/catalog/trust/intent-model.json` (with `--write`; checks it with `--check`).
 *
 * Trains the poisoning detector's learned signal (src/catalog/trust/intent-model.ts): logistic
 * regression over hashed word and character n-grams, one instance per sentence, on the corpus in
 * test/fixtures/trust (the real servers' catalogs of test/fixtures/trust/real-servers among the
 * benign) plus Aperture's built-in tools as benign. First it measures honestly:
 * leave-one-round-out cross validation (each held-out round's tools scored by a model fitted
 * without them, threshold chosen on the training part only), printed per round for the rules
 * alone, the model alone and both. Then it fits on everything and writes the weights.
 *
 *   npm run intent-model -- [--write | --check]    (or: npx tsx scripts/train-poisoning-model.ts …)
 *
 * `--write` replaces src/catalog/trust/intent-model.json; `--check` fails unless the committed
 * weights are exactly what this script fits (training is deterministic: seeded shuffles).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { syntheticTools } from '../bench/lib/synthetic-catalog.js';
import {
  type IntentModel,
  scoreSentence,
  sentenceFeatures,
  toolSegments,
} from '../src/catalog/trust/intent-model.js';
import { createPoisoningDetector, isFlagged } from '../src/catalog/trust/poisoning-detector.js';
import type { JsonSchema, Tool } from '../src/foundation/model/tool.js';
import { builtinTools } from '../src/sources/builtin/builtin-tools.js';

/** The repository root: this script sits in `scripts/`. */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const BUCKETS = 1 << 14;
const EPOCHS = 30;
/**
 * Weight decay. 1e-5 (before) let single words carry weights of 7–10 ("this", "the user",
 * "tool", "always"): with the real servers' long, model-addressed prose, a server held out of
 * training had sentences like "This tool lists all projects that the user is following on
 * CircleCI." scored 0.995, and 3 of 402 real tools flagged. Measured on the cross validation
 * below (rounds held out, and each real server held out): 1e-4 and 3e-4 kept 2–3 real tools
 * flagged, 1e-3 two, 3e-3 none — at 116 of 145 attacks instead of 121 (see docs/SECURITY.md).
 * Tried and not kept on the same figures: more hash buckets, word trigrams, stop words left
 * out of the unigrams, bigrams only, normalising by length instead of its square root, weights
 * clipped, averaged over seeds, the real servers' sentences weighted more, and stricter
 * positives in the second pass: none gave zero held-out real tools flagged at more recall.
 */
const L2 = 3e-3;
const RATE = 0.5;
/**
 * A sentence scoring this or more flags its tool. (With L2 3e-3: 0.95 flags no held-out real
 * tool and no held-out hard negative; 0.9 two real tools at one attack more.) Before: on the cross validation of rounds 0–9, 0.8
 * flagged two held-out hard negatives, 0.85 and 0.9 none, 0.93 none at one attack fewer. Round 10,
 * written afterwards, had a hard negative at 0.926 under 0.9, so 0.93. With the real servers'
 * catalogs added as benign (402 tools of long, model-addressed prose), 0.93 flagged two trained
 * hard negatives (h13, t01) and two held-out ones; 0.95 none trained and one held out (h111) at
 * one attack fewer; 0.97 lost four more held-out attacks. A flagged ordinary tool costs more than
 * a missed attack (the fingerprint still holds back any later change), so 0.95.
 */
const THRESHOLD = 0.95;
/**
 * Blind rounds to train on (test/fixtures/trust/poisoning-round-N.json), comma-separated; none by
 * default. Tried with 11,12,13 and measured on round 14 (docs/SECURITY.md, "Blind rounds"): one
 * held-out hard negative flagged in the cross validation, so not shipped.
 */
const BLIND_ROUNDS = (process.env.POISONING_BLIND_ROUNDS ?? '')
  .split(',')
  .filter((r) => r.trim() !== '')
  .map(Number);
/** Synthetic tools whose distinct sentences are trained on as benign. */
const SYNTHETIC_TRAIN = 100;

interface Entry {
  id: string;
  description: string;
  title?: string;
  inputSchema?: JsonSchema;
  style?: string;
  round?: number;
}
export interface Example {
  id: string;
  /** Round it was written in (0: the first corpus; -1: always trained on, never held out). */
  group: number;
  malicious: boolean;
  tool: Tool;
  sentences: string[];
  /**
   * The sentences' feature vectors, when only those are at hand (the benchmark-derived benign
   * fixture ships hashed features, not third-party text; its `sentences` is then empty).
   */
  features?: number[][];
}

function load(name: string): Entry[] {
  return JSON.parse(readFileSync(path.join(ROOT, 'test/fixtures/trust', name), 'utf8')) as Entry[];
}

/** The real servers' tools (test/fixtures/trust/real-servers, scripts/collect-real-server-tools.ts). */
const REAL_SERVERS = 'real-servers/tools.json';
const realServerIds = () => load(REAL_SERVERS).map((entry) => entry.id);

function toolOf(id: string, entry: Omit<Entry, 'id'>): Tool {
  return {
    id: `corpus:${id}`,
    name: id,
    description: entry.description,
    inputSchema: entry.inputSchema ?? { type: 'object' },
    ...(entry.title === undefined ? {} : { title: entry.title }),
  } as Tool;
}

function example(id: string, group: number, malicious: boolean, entry: Omit<Entry, 'id'>): Example {
  const tool = toolOf(id, entry);
  return { id, group, malicious, tool, sentences: toolSegments(tool).map((s) => s.text) };
}

/**
 * The public tool-retrieval benchmarks' tool files (git-ignored, local only; bench/data/README):
 * thousands of ordinary tool descriptions, tried as a wider benign corpus (docs/SECURITY.md,
 * "fourth round"). Off unless `POISONING_BENCHMARK_BENIGN` names the sets, comma-separated
 * (`toolbench-stb,toollens,metatool,livemcpbench`), so the script runs where bench/data is absent.
 */
const BENCHMARK_DIR = 'bench/data/tool-retrieval';
/**
 * livemcpbench's servers that are also in the real-server corpus. Left out: trained on, they would
 * leak a real server into the fits that hold it out.
 */
const LIVEMCPBENCH_OVERLAP = new Set([
  'desktop-commander',
  'filesystem',
  'memory',
  'sequential-thinking',
  'playwright',
  'puppeteer',
  'Context7',
  'magicuidesign_mcp',
  'youtube-transcript',
]);

interface BenchmarkTool {
  id: string;
  name: string;
  namespace?: string;
  description?: string | null;
  input_schema?: JsonSchema | null;
}

/** A benchmark's tools as Aperture tools (livemcpbench's servers of the real corpus left out). */
export function benchmarkTools(set: string): Tool[] {
  const file = path.join(ROOT, BENCHMARK_DIR, set, 'tools.jsonl');
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as BenchmarkTool)
    .filter((t) => !(set === 'livemcpbench' && LIVEMCPBENCH_OVERLAP.has(t.namespace ?? '')))
    .map(
      (t) =>
        ({
          id: `bench:${set}:${t.id}`,
          name: t.name,
          description: t.description ?? '',
          inputSchema: t.input_schema ?? { type: 'object' },
        }) as Tool,
    );
}

/**
 * The benchmarks' distinct sentences as benign examples (group -1: always trained on). A sentence
 * already in the corpus (an attack, a hard negative, a real server's) is left out: it would
 * otherwise be trained on in the fits that hold its tool out.
 */
export function benchmarkExamples(sets: readonly string[], corpus: readonly Example[]): Example[] {
  const seen = new Set(corpus.flatMap((e) => e.sentences));
  const out: Example[] = [];
  for (const set of sets) {
    for (const tool of benchmarkTools(set)) {
      const fresh = toolSegments(tool)
        .map((s) => s.text)
        .filter((text) => !seen.has(text) && seen.add(text));
      if (fresh.length > 0) out.push({ id: tool.id, group: -1, malicious: false, tool, sentences: fresh });
    }
  }
  return out;
}

/** The benchmark sets named by `POISONING_BENCHMARK_BENIGN` (none by default). */
export const benchmarkSetsFromEnv = (): string[] =>
  (process.env.POISONING_BENCHMARK_BENIGN ?? '')
    .split(',')
    .map((set) => set.trim())
    .filter((set) => set !== '');

export function corpusExamples(): Example[] {
  const out = baseCorpusExamples();
  const sets = benchmarkSetsFromEnv();
  return sets.length === 0 ? out : [...out, ...benchmarkExamples(sets, out)];
}

/** The committed corpus (test/fixtures/trust, the built-in tools, the synthetic catalog's sentences). */
export function baseCorpusExamples(): Example[] {
  const out: Example[] = [];
  for (const entry of load('poisoning-malicious.json')) {
    const round = /round (\d+)/.exec(entry.style ?? '')?.[1];
    out.push(example(entry.id, round === undefined ? 0 : Number(round), true, entry));
  }
  for (const entry of load('poisoning-benign-hard.json'))
    out.push(example(entry.id, entry.round ?? 0, false, entry));
  // The blind rounds (written by someone without the rules or the corpus in view), each its own
  // group, so the cross validation holds each out in turn.
  for (const round of BLIND_ROUNDS) {
    const set = JSON.parse(
      readFileSync(path.join(ROOT, 'test/fixtures/trust', `poisoning-round-${round}.json`), 'utf8'),
    ) as { malicious: Entry[]; hard: Entry[] };
    for (const entry of set.malicious) out.push(example(entry.id, round, true, entry));
    for (const entry of set.hard) out.push(example(entry.id, round, false, entry));
  }
  for (const entry of load('poisoning-benign.json')) out.push(example(entry.id, -1, false, entry));
  // Ordinary tools written for training: the topics of attacks (payments, tokens, e-mail,
  // memory, other tools, "you must") in ordinary use. Always trained on, never held out.
  for (const entry of load('poisoning-benign-train.json')) out.push(example(entry.id, -1, false, entry));
  // Real servers' catalogs as they list them (test/fixtures/trust/real-servers): the long,
  // model-addressed prose of production tools ("the LLM must…", "use X instead"). Always trained on.
  for (const entry of load(REAL_SERVERS)) out.push(example(entry.id, -1, false, entry));
  for (const def of builtinTools()) {
    out.push(
      example(`builtin:${def.name}`, -1, false, {
        description: def.description,
        inputSchema: def.inputSchema,
      }),
    );
  }
  // The search benchmark's synthetic catalog: ordinary tool and schema prose ("Give up after this
  // many seconds.") of a kind the corpus lacks. Its sentences are templated, so each distinct
  // sentence is kept once (as many copies would drown the corpus).
  const seen = new Set<string>();
  for (const tool of syntheticTools(SYNTHETIC_TRAIN)) {
    const fresh = toolSegments(tool)
      .map((s) => s.text)
      .filter((text) => !seen.has(text) && seen.add(text));
    if (fresh.length > 0) out.push({ id: tool.id, group: -1, malicious: false, tool, sentences: fresh });
  }
  return out;
}

interface Instance {
  features: number[];
  label: number;
}

function fitLogistic(instances: Instance[], seed = 1, l2 = L2): { bias: number; weights: Float64Array } {
  const weights = new Float64Array(BUCKETS);
  let bias = 0;
  const positives = instances.filter((i) => i.label === 1).length;
  const negatives = instances.length - positives;
  // Balanced classes: a missed attack sentence and a flagged benign one weigh the same in training.
  const classWeight = [
    instances.length / (2 * Math.max(1, negatives)),
    instances.length / (2 * Math.max(1, positives)),
  ];
  const order = instances.map((_, i) => i);
  let state = seed;
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
      const { features, label } = instances[index] as Instance;
      if (features.length === 0) continue;
      const scale = 1 / Math.sqrt(features.length);
      let z = bias;
      for (const f of features) z += (weights[f] as number) * scale;
      const p = 1 / (1 + Math.exp(-z));
      const g = (p - label) * (classWeight[label] as number) * rate;
      bias -= g * 0.1;
      for (const f of features) weights[f] = (weights[f] as number) * (1 - rate * l2) - g * scale;
    }
  }
  return { bias, weights };
}

function toModel(fitted: { bias: number; weights: Float64Array }, threshold: number): IntentModel {
  const weights: Record<string, number> = {};
  for (const [i, w] of fitted.weights.entries())
    if (Math.abs(w) >= 0.02) weights[i] = Math.round(w * 100) / 100;
  return { buckets: BUCKETS, bias: Math.round(fitted.bias * 1000) / 1000, threshold, weights };
}

const toolScore = (model: IntentModel, ex: Example) =>
  Math.max(0, ...ex.sentences.map((s) => scoreSentence(model, s)));

/**
 * Two passes (multiple-instance learning): a poisoned tool's cover sentence ("Adds two numbers.")
 * is benign, so after a first fit on every sentence only the sentences the model finds most
 * suspect in each malicious tool stay positives.
 */
/** What a fit may change from the shipped settings (the experiments' variants). */
export interface TrainOptions {
  /** Weight decay per step (default `L2`). */
  l2?: number;
  /** The threshold written into the model (default `THRESHOLD`). */
  threshold?: number;
}

/** The feature vectors of an example's sentences: precomputed ones when it carries them. */
const featuresOf = (e: Example): number[][] =>
  e.features ?? e.sentences.map((s) => sentenceFeatures(s, BUCKETS));

export function train(examples: Example[], options: TrainOptions = {}): IntentModel {
  const l2 = options.l2 ?? L2;
  const negatives: Instance[] = examples
    .filter((e) => !e.malicious)
    .flatMap((e) => featuresOf(e).map((features) => ({ features, label: 0 })));
  const malicious = examples.filter((e) => e.malicious);
  const first = toModel(
    fitLogistic(
      [
        ...negatives,
        ...malicious.flatMap((e) =>
          e.sentences.map((s) => ({ features: sentenceFeatures(s, BUCKETS), label: 1 })),
        ),
      ],
      1,
      l2,
    ),
    0.5,
  );
  const positives: Instance[] = malicious.flatMap((e) => {
    const scored = e.sentences.map((s) => ({ s, p: scoreSentence(first, s) })).sort((a, b) => b.p - a.p);
    const best = scored[0]?.p ?? 0;
    return scored
      .filter((x, i) => i === 0 || x.p >= Math.max(0.5, best - 0.3))
      .map((x) => ({ features: sentenceFeatures(x.s, BUCKETS), label: 1 }));
  });
  const model = toModel(fitLogistic([...negatives, ...positives], 1, l2), 1);
  model.threshold = options.threshold ?? THRESHOLD;
  return model;
}

/** What the cross validation measured (printed by the script, asserted by the test). */
export interface CrossValidation {
  /** One Markdown table row per held-out round, then the totals. */
  rows: string[];
  /** Malicious tools, and those flagged by the rules (in-sample) or a model fitted without their round. */
  malicious: number;
  flagged: number;
  /** The rounds' hard negatives flagged when their round was held out. */
  hardNegativesFlagged: string[];
  /** Real servers' tools flagged when their server was held out of training. */
  realTools: number;
  realServers: number;
  realFlagged: string[];
  /**
   * Every held-out tool: what it is, whether the rules flag it, and the highest sentence score
   * of the model fitted without it (so other thresholds can be read from the same fits).
   */
  heldOut: { id: string; kind: 'malicious' | 'hard' | 'real'; rules: boolean; score: number }[];
}

/**
 * Leave-one-round-out cross validation on the malicious and hard-negative corpus, and each real
 * server held out of training in turn (the rules as committed: in-sample for both).
 */
export function crossValidate(
  examples: Example[] = corpusExamples(),
  options: TrainOptions = {},
): CrossValidation {
  const rules = createPoisoningDetector({ intentModel: null });
  const ruleFlag = new Map(examples.map((e) => [e.id, isFlagged(rules(e.tool))]));
  const groups = [...new Set(examples.map((e) => e.group))].filter((g) => g >= 0).sort((a, b) => a - b);
  const rows: string[] = [
    '| round | malicious | rules | model | both | hard neg. | flagged by rules | by model | threshold |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  const totals = { mal: 0, rules: 0, model: 0, both: 0, hard: 0, hardRules: 0, hardModel: 0 };
  const hardNegativesFlagged: string[] = [];
  const heldOut: CrossValidation['heldOut'] = [];
  for (const group of groups) {
    const model = train(
      examples.filter((e) => e.group !== group),
      options,
    );
    const held = examples.filter((e) => e.group === group);
    for (const e of held) {
      heldOut.push({
        id: e.id,
        kind: e.malicious ? 'malicious' : 'hard',
        rules: ruleFlag.get(e.id) === true,
        score: toolScore(model, e),
      });
    }
    const mal = held.filter((e) => e.malicious);
    const hard = held.filter((e) => !e.malicious);
    const byModel = (e: Example) => toolScore(model, e) >= model.threshold;
    const r = mal.filter((e) => ruleFlag.get(e.id)).length;
    const m = mal.filter(byModel).length;
    const b = mal.filter((e) => ruleFlag.get(e.id) || byModel(e)).length;
    const hr = hard.filter((e) => ruleFlag.get(e.id)).length;
    const hm = hard.filter(byModel);
    hardNegativesFlagged.push(...hard.filter((e) => ruleFlag.get(e.id) || byModel(e)).map((e) => e.id));
    rows.push(
      `| ${group} | ${mal.length} | ${r} | ${m} | ${b} | ${hard.length} | ${hr} | ${hm.length}${hm.length ? ` (${hm.map((e) => e.id).join(', ')})` : ''} | ${model.threshold} |`,
    );
    totals.mal += mal.length;
    totals.rules += r;
    totals.model += m;
    totals.both += b;
    totals.hard += hard.length;
    totals.hardRules += hr;
    totals.hardModel += hm.length;
  }
  rows.push(
    `| all | ${totals.mal} | ${totals.rules} | ${totals.model} | ${totals.both} | ${totals.hard} | ${totals.hardRules} | ${totals.hardModel} | |`,
  );
  // The real servers held out one server at a time: what a catalog the model has not seen gets.
  // (The rules are as committed, tuned with the whole real-server corpus in view: in-sample.)
  const serverOf = (e: Example) => (e.id.includes(':') ? e.id.slice(0, e.id.lastIndexOf(':')) : '');
  const real = new Set(realServerIds());
  const servers = [...new Set(examples.filter((e) => real.has(e.id)).map(serverOf))];
  const realFlagged: string[] = [];
  for (const server of servers) {
    const held = examples.filter((e) => real.has(e.id) && serverOf(e) === server);
    const model = train(
      examples.filter((e) => !(real.has(e.id) && serverOf(e) === server)),
      options,
    );
    for (const e of held) {
      heldOut.push({
        id: e.id,
        kind: 'real',
        rules: ruleFlag.get(e.id) === true,
        score: toolScore(model, e),
      });
      if (ruleFlag.get(e.id) || toolScore(model, e) >= model.threshold) realFlagged.push(e.id);
    }
  }
  return {
    rows,
    malicious: totals.mal,
    flagged: totals.both,
    hardNegativesFlagged,
    realTools: real.size,
    realServers: servers.length,
    realFlagged,
    heldOut,
  };
}

function main(): void {
  const examples = corpusExamples();
  const cv = crossValidate(examples);
  console.log('leave-one-round-out cross validation (round 0: the first corpus, m01-m38 and h01-h45)');
  console.log(cv.rows.join('\n'));
  console.log(
    `real servers, each held out of training: ${cv.realFlagged.length} of ${cv.realTools} tools of ${cv.realServers} servers flagged${cv.realFlagged.length ? ` (${cv.realFlagged.join(', ')})` : ''}`,
  );
  const model = train(examples);
  console.log(`full fit: ${Object.keys(model.weights).length} weights, threshold ${model.threshold}`);
  // Another draw of the synthetic catalog (other seed: same templates, other combinations).
  const synthetic = syntheticTools(5000, 99);
  const syntheticFlagged = synthetic.filter((tool) =>
    toolSegments(tool).some((s) => scoreSentence(model, s.text) >= model.threshold),
  );
  console.log(
    `synthetic catalog (not trained on): ${syntheticFlagged.length} of ${synthetic.length} flagged by the model${syntheticFlagged.length ? `, e.g. ${syntheticFlagged[0]?.description}` : ''}`,
  );
  const file = path.join(ROOT, 'src/catalog/trust/intent-model.json');
  const text = `${JSON.stringify(model, null, 2)}\n`;
  if (process.argv.includes('--write')) {
    writeFileSync(file, text);
    console.log(`wrote ${file}`);
  } else if (process.argv.includes('--check')) {
    const same = JSON.stringify(JSON.parse(readFileSync(file, 'utf8'))) === JSON.stringify(model);
    console.log(same ? 'committed weights match the fit' : 'committed weights DIFFER from the fit');
    if (!same) process.exitCode = 1;
  }
}

if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) main();
