#!/usr/bin/env node
/**
 * What the policy rules cost per call: `run` of a no-op tool through the run pipeline, in process
 * (no transport, so nothing hides a few microseconds), with no policies against 50 CEL rules.
 *
 * Variants, each its own pipeline over the same catalog, measured side by side:
 *   none     no `policies` (the baseline: the engine is inactive and skipped)
 *   cel50    50 rules on this tool, one per identity (`caller.identity == … && args…`): the
 *            engine passes 49 over by their identity test, evaluates the caller's own
 *   cel50args  50 rules on this tool testing the arguments only: all 50 evaluated, none matches
 *   cedar    a Cedar file of 3 policies (permit all, two forbids on arguments) and no rules
 *
 * After a warm-up, blocks of `policy-block` calls alternate between the variants, the order
 * rotated each round (`interleavedRounds`). "Added" is p50(variant) − p50(none).
 *
 * Options (argv `--name value`, or env `BENCH_NAME`): policy-n (20000 per variant), policy-warmup
 * (2000), policy-block (1000), policy-variants (all, comma-separated), json-out. Prints a Markdown section on stdout.
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

/**
 * 50 rules as an operator writes them, all on this tool: per team, which repositories its member
 * may write. The caller is the last team's, so 49 rules are passed over (by their identity test,
 * which the engine checks before the interpreter) and the 50th is evaluated.
 */
export function fiftyRules(): PolicyRuleDefinition[] {
  return Array.from({ length: 50 }, (_, i) => ({
    name: `team-${i}`,
    effect: 'deny' as const,
    tools: ['demo:*'],
    when: `caller.identity == "user-${i}" && !args.repo.startsWith("team-${i}/")`,
  }));
}

/** 50 rules on the arguments alone, all on this tool: none can be passed over, all 50 are evaluated. */
export function fiftyArgumentRules(): PolicyRuleDefinition[] {
  return Array.from({ length: 50 }, (_, i) => ({
    name: `size-${i}`,
    effect: 'deny' as const,
    tools: ['demo:*'],
    when: `args.repo.startsWith("blocked-${i}/") || args.repo.endsWith(".tmp${i}")`,
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
    cel50args: make(new PolicyEngine({ rules: fiftyArgumentRules() })),
    cedar: make(new PolicyEngine({ cedar: await CedarPolicies.load(CEDAR, 'bench.cedar') })),
  };
}

export async function runPolicyAuthorize() {
  const n = option('policy-n', 20_000);
  const warmup = option('policy-warmup', 2000);
  const blockSize = option('policy-block', 1000);
  const only = option('policy-variants', 'none,cel50,cel50args,cedar').split(',');
  const made = Object.fromEntries(Object.entries(await pipelines()).filter(([key]) => only.includes(key)));
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
    cel50: '50 CEL rules per identity (49 passed over by their identity test)',
    cel50args: '50 CEL rules on the arguments (all 50 evaluated)',
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
