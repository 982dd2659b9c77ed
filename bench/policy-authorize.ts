#!/usr/bin/env node
/**
 * What the policy rules cost per call: `run` of a no-op tool through the run pipeline, in process
 * (no transport, so nothing hides a few microseconds), with no policies against 50 CEL rules.
 *
 * Variants, each its own pipeline over the same catalog, measured side by side:
 *   none     no `policies` (the baseline: the engine is inactive and skipped)
 *   cel50    50 rules on every tool, each naming the caller and the arguments; the first 49 do
 *            not match this call, so all 50 are evaluated before the last one allows it
 *   cedar    a Cedar file of 3 policies (permit all, two forbids on arguments) and no rules
 *
 * After a warm-up, blocks of `policy-block` calls alternate between the variants, the order
 * rotated each round (`interleavedRounds`). "Added" is p50(variant) − p50(none).
 *
 * Options (argv `--name value`, or env `BENCH_NAME`): policy-n (20000 per variant), policy-warmup
 * (2000), policy-block (1000), json-out. Prints a Markdown section on stdout.
 */
import { Catalog } from '../src/catalog/catalog.js';
import { CedarPolicies } from '../src/execution/policy/cedar-policies.js';
import { PolicyEnforcement } from '../src/execution/policy/policy-enforcement.js';
import { PolicyEngine } from '../src/execution/policy/policy-engine.js';
import type { PolicyRuleDefinition } from '../src/execution/policy/policy-types.js';
import { RunPipeline } from '../src/execution/run-pipeline.js';
import type { Tool } from '../src/foundation/model/tool.js';
import { SchemaValidator } from '../src/foundation/schema/schema-validator.js';
import { interleavedRounds, machine, ms, option, runIfMain, signed, summarize, table } from './lib/common.js';

/** The p50 the authorize stage may add per call with 50 CEL rules (the goal: 20 µs). */
export const TARGET_ADDED_P50_MS = 0.02;

const TOOL: Tool = {
  id: 'demo:repo_write',
  namespace: 'demo',
  name: 'repo_write',
  description: 'Write to a repository',
  inputSchema: { type: 'object', properties: { repo: { type: 'string' } }, required: ['repo'] },
  annotations: {},
  tags: ['git'],
  metadata: {},
  examples: [],
  origin: { sourceId: 'bench', kind: 'local', originalName: 'repo_write' },
};

/** 50 rules as an operator writes them: per-team repositories, the last one the team of this caller. */
export function fiftyRules(): PolicyRuleDefinition[] {
  return Array.from({ length: 50 }, (_, i) => ({
    name: `team-${i}`,
    effect: i === 49 ? ('allow' as const) : ('deny' as const),
    tools: ['demo:*'],
    // Both sides are evaluated for every rule that does not match: the repository test first.
    when: `!args.repo.startsWith("team-${i}/") && caller.identity == "user-${i}"`,
  }));
}

const CEDAR = `permit(principal, action, resource);
forbid(principal, action == Action::"call_tool", resource == Tool::"demo:repo_write")
  unless { context.args has repo && context.args.repo like "team-*" };
forbid(principal == Caller::"intruder", action, resource);`;

async function pipelines(): Promise<Record<string, RunPipeline>> {
  const catalog = new Catalog();
  catalog.replaceSource('bench', [{ tool: TOOL, backend: { execute: async () => 'ok' } }]);
  const validator = new SchemaValidator();
  const make = (engine?: PolicyEngine) =>
    new RunPipeline({
      catalog,
      validator,
      ...(engine ? { policy: new PolicyEnforcement({ engine }) } : {}),
    });
  return {
    none: make(),
    cel50: make(new PolicyEngine({ rules: fiftyRules() })),
    cedar: make(new PolicyEngine({ cedar: await CedarPolicies.load(CEDAR, 'bench.cedar') })),
  };
}

export async function runPolicyAuthorize() {
  const n = option('policy-n', 20_000);
  const warmup = option('policy-warmup', 2000);
  const blockSize = option('policy-block', 1000);
  const made = await pipelines();
  const variants = Object.keys(made).map((key) => ({ key }));
  const request = { toolId: TOOL.id, args: { repo: 'team-49/site' }, caller: { identity: 'user-49' } };
  // Every variant must let the call through, or it measures a refusal.
  for (const pipeline of Object.values(made)) await pipeline.run(request);
  const { samples } = await interleavedRounds(variants, {
    n,
    warmup,
    blockSize,
    block: async (variant, count, into) => {
      const pipeline = made[variant.key] as RunPipeline;
      for (let i = 0; i < count; i++) {
        const started = performance.now();
        await pipeline.run(request);
        into?.push(performance.now() - started);
      }
    },
    onRound: (r, rounds) => process.stderr.write(`\rpolicy-authorize round ${r}/${rounds}`),
  });
  process.stderr.write('\n');
  const summaries = Object.fromEntries(Object.entries(samples).map(([key, s]) => [key, summarize(s)]));
  const base = summaries.none?.p50 ?? 0;
  const added = Object.fromEntries(Object.entries(summaries).map(([key, s]) => [key, s.p50 - base]));
  return { machine: machine(), n, summaries, added };
}

export function renderPolicyAuthorize(results: Awaited<ReturnType<typeof runPolicyAuthorize>>): string {
  const labels: Record<string, string> = {
    none: 'no policies',
    cel50: '50 CEL rules (all evaluated)',
    cedar: 'Cedar file, 3 policies',
  };
  return [
    `### The authorize stage per call (${results.n} calls per variant, side by side)`,
    '',
    table(
      ['variant', 'p50 ms', 'p95 ms', 'p99 ms', 'added at p50 ms'],
      Object.entries(results.summaries).map(([key, s]) => [
        labels[key] ?? key,
        ms(s.p50, 4),
        ms(s.p95, 4),
        ms(s.p99, 4),
        key === 'none' ? '—' : signed(results.added[key] ?? 0, 4),
      ]),
    ),
    '',
    `Goal: 50 CEL rules add at most ${ms(TARGET_ADDED_P50_MS, 3)} ms at p50.`,
  ].join('\n');
}

runIfMain(import.meta.url, runPolicyAuthorize, renderPolicyAuthorize);
