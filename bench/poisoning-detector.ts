#!/usr/bin/env node
/**
 * What the poisoning detector costs per tool version, side by side in one run with the tool's
 * fingerprint (which every new version also gets): the real servers' catalogs
 * (test/fixtures/trust/real-servers) and hostile tools built to make a regular expression
 * backtrack (a description and twenty schema strings of `x.x.x…`, `a-a-a…`, `http://a.http://a.…`
 * at the size limit). Not part of `run-all`; the figures are in docs/SECURITY.md and
 * docs/PERFORMANCE.md.
 *
 *   npx tsx bench/poisoning-detector.ts [--runs 5]
 */
import {
  createPoisoningDetector,
  DEFAULT_MAX_DESCRIPTION_CHARS,
} from '../src/catalog/trust/poisoning-detector.js';
import { fingerprintTool } from '../src/catalog/trust/tool-fingerprint.js';
import type { Tool } from '../src/foundation/model/tool.js';
import { realServerTools } from './lib/real-server-tools.js';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 5;
const real = realServerTools();

/** A tool whose every text is `unit` repeated up to just under the description limit. */
function hostile(unit: string): Tool {
  const text = unit.repeat(Math.ceil((DEFAULT_MAX_DESCRIPTION_CHARS - 100) / unit.length));
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < 20; i++) properties[`p${i}`] = { type: 'string', description: `${i} ${text}` };
  return {
    id: 'hostile:tool',
    name: 'tool',
    description: text,
    inputSchema: { type: 'object', properties },
  } as unknown as Tool;
}
const HOSTILE_UNITS = ['x.', 'a-', 'http://a.', '![a](http://x', 'a@', 'never ', 'the '];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
function perTool(tools: readonly Tool[], check: (tool: Tool) => unknown): number {
  const samples: number[] = [];
  for (let run = 0; run < runs; run++) {
    const start = performance.now();
    // A shallow copy per call: the fingerprint is cached per tool object, and a new version
    // arrives as a new object.
    for (const tool of tools) check({ ...tool });
    samples.push((performance.now() - start) / tools.length);
  }
  return median(samples);
}

const detect = createPoisoningDetector();
const rules = createPoisoningDetector({ intentModel: null });
// Warm each up once, so the first run's compilation is not measured.
for (const tool of real) {
  detect(tool);
  rules(tool);
  fingerprintTool(tool);
}

const fingerprint = perTool(real, fingerprintTool);
const detector = perTool(real, detect);
const rulesAlone = perTool(real, rules);
console.log(`real servers' tools (${real.length}), median of ${runs} runs, per tool:`);
console.log('| check | ms per tool | × fingerprint |');
console.log('|---|---|---|');
for (const [name, ms] of [
  ['fingerprint', fingerprint],
  ['detector (rules + model)', detector],
  ['rules alone', rulesAlone],
] as const) {
  console.log(`| ${name} | ${ms.toFixed(3)} | ${(ms / fingerprint).toFixed(1)} |`);
}
console.log('\nhostile tools (description + 20 schema strings at the limit), detector per tool:');
console.log('| text repeated | characters | ms | × a real tool |');
console.log('|---|---|---|---|');
for (const unit of HOSTILE_UNITS) {
  const tool = hostile(unit);
  const chars = tool.description.length * 21;
  const ms = perTool([tool], detect);
  console.log(
    `| \`${unit}\` | ${chars.toLocaleString('en')} | ${ms.toFixed(1)} | ${(ms / detector).toFixed(0)} |`,
  );
}
