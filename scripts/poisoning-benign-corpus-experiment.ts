#!/usr/bin/env node
/**
 * The fourth round on the poisoning detector's false positives (docs/SECURITY.md): the public
 * tool-retrieval benchmarks' tool descriptions (bench/data/tool-retrieval, git-ignored, local
 * only) trained on as benign, at several weight decays, measured by the same cross validation as
 * the shipped model (`crossValidate` of train-poisoning-model.ts: each round held out, each real
 * server held out). The variants were fixed before any held-out figure was read:
 *
 *   corpus  A = toolbench-stb + toollens + metatool (API prose), B = A + livemcpbench (MCP tools)
 *   L2      1e-5, 1e-4, 3e-4, 1e-3, 3e-3; threshold 0.95 (0.9 printed for information only)
 *
 * For A, livemcpbench's 527 real MCP tools (never trained on) are scored by the variant's full fit
 * as one more check for false positives. Also prints how many benchmark tools the detector as
 * shipped flags. One JSON line per variant goes to stdout as it finishes.
 *
 *   npx tsx scripts/poisoning-benign-corpus-experiment.ts [A|B …] [--l2=1e-5,1e-4]
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { scoreSentence, toolSegments } from '../src/catalog/trust/intent-model.js';
import { createPoisoningDetector, isFlagged } from '../src/catalog/trust/poisoning-detector.js';
import type { Tool } from '../src/foundation/model/tool.js';
import {
  baseCorpusExamples,
  benchmarkExamples,
  crossValidate,
  type Example,
  train,
} from './train-poisoning-model.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const API_SETS = ['toolbench-stb', 'toollens', 'metatool'];
const CORPORA: Record<string, string[]> = { A: API_SETS, B: [...API_SETS, 'livemcpbench'] };
const L2S = [1e-5, 1e-4, 3e-4, 1e-3, 3e-3];

/** Every tool of a benchmark, none left out (for the checks; training leaves overlaps out). */
function allTools(set: string): Tool[] {
  return readFileSync(path.join(ROOT, 'bench/data/tool-retrieval', set, 'tools.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const t = JSON.parse(line) as {
        id: string;
        name: string;
        description?: string;
        input_schema?: unknown;
      };
      return {
        id: `bench:${set}:${t.id}`,
        name: t.name,
        description: t.description ?? '',
        inputSchema: t.input_schema ?? { type: 'object' },
      } as Tool;
    });
}

function main(): void {
  if (!existsSync(path.join(ROOT, 'bench/data/tool-retrieval/livemcpbench/tools.jsonl'))) {
    // The benchmarks are local only (git-ignored): bench/data/tool-retrieval/extract_benchmarks.py.
    console.error('bench/data/tool-retrieval is absent: this experiment needs the benchmarks locally');
    process.exit(1);
  }
  const args = process.argv.slice(2);
  const corpora = args.filter((a) => a in CORPORA);
  const l2Arg = args.find((a) => a.startsWith('--l2='));
  const l2s = l2Arg ? l2Arg.slice(5).split(',').map(Number) : L2S;
  const base = baseCorpusExamples();
  const livemcp = allTools('livemcpbench');

  if (args.includes('--shipped')) {
    // The detector as shipped (rules + committed weights) over every benchmark tool.
    const detector = createPoisoningDetector();
    const rulesOnly = createPoisoningDetector({ intentModel: null });
    for (const set of [...API_SETS, 'livemcpbench']) {
      const tools = allTools(set);
      const flagged = tools.filter((t) => isFlagged(detector(t)));
      const byRules = tools.filter((t) => isFlagged(rulesOnly(t)));
      console.log(
        JSON.stringify({
          shipped: set,
          tools: tools.length,
          flagged: flagged.length,
          byRules: byRules.length,
          ids: flagged.map(
            (t) =>
              `${t.id} [${detector(t)
                .map((f) => f.rule)
                .join(',')}]`,
          ),
        }),
      );
    }
    return;
  }

  for (const corpus of corpora.length > 0 ? corpora : Object.keys(CORPORA)) {
    const extra = benchmarkExamples(CORPORA[corpus] as string[], base);
    const examples: Example[] = [...base, ...extra];
    console.error(
      `corpus ${corpus}: ${extra.length} benchmark tools, ${extra.reduce((n, e) => n + e.sentences.length, 0)} distinct sentences`,
    );
    for (const l2 of l2s) {
      const started = Date.now();
      const cv = crossValidate(examples, { l2 });
      const seconds = (Date.now() - started) / 1000;
      const at = (threshold: number) => {
        const hit = (h: (typeof cv.heldOut)[number]) => h.rules || h.score >= threshold;
        return {
          recall: cv.heldOut.filter((h) => h.kind === 'malicious' && hit(h)).length,
          real: cv.heldOut.filter((h) => h.kind === 'real' && hit(h)).map((h) => h.id),
          hard: cv.heldOut.filter((h) => h.kind === 'hard' && hit(h)).map((h) => h.id),
        };
      };
      const full = train(examples, { l2 });
      const modelFlags = (t: Tool, threshold: number) =>
        toolSegments(t).some((s) => scoreSentence(full, s.text) >= threshold);
      const rules = createPoisoningDetector({ intentModel: null });
      const livemcpRules = livemcp.filter((t) => isFlagged(rules(t))).map((t) => t.id);
      console.log(
        JSON.stringify({
          corpus,
          l2,
          seconds,
          malicious: cv.malicious,
          t95: at(0.95),
          t90: at(0.9),
          livemcpbench: {
            trained: corpus === 'B',
            tools: livemcp.length,
            rules: livemcpRules,
            model95: livemcp.filter((t) => modelFlags(t, 0.95)).map((t) => t.id),
            model90: livemcp.filter((t) => modelFlags(t, 0.9)).length,
          },
        }),
      );
    }
  }
}

main();
