#!/usr/bin/env node
/**
 * What policies over skills cost `skills/list`: `GatewaySkills.list` of one caller, in process, over
 * two servers of 50 skills each whose listings are kept (the steady state of a gateway: a server's
 * listing is kept until it announces a change), so what is measured is the gateway's own work.
 *
 * Variants, measured side by side in interleaved rounds:
 *   no-gate        no skill gate at all (the code before skills were gated)
 *   no-policies    the session's gate, no `policies` (nothing can hide: no skill is asked about)
 *   hide-off       20 rules, one denying a skill by `args.name`, `hideDenied: false` (nothing hidden)
 *   rules          the same rules with `hideDenied` (the default): each listed skill's
 *                  `<namespace>:skills/get` with `{ name }` is decided, one skill left out
 *
 * Options: skills-policy-n (2000 lists per variant), warmup (200), block (100).
 */
import type { Skill } from '@modelcontextprotocol/server/ext/skills';
import { ActionGate } from '../src/execution/action-gate.js';
import { PolicyEnforcement } from '../src/execution/policy/policy-enforcement.js';
import { PolicyEngine } from '../src/execution/policy/policy-engine.js';
import type { PolicyRuleDefinition } from '../src/execution/policy/policy-types.js';
import { silentLogger } from '../src/foundation/ports/logger.js';
import type { DownstreamSkills, SkillListing } from '../src/sources/mcp/downstream-skills.js';
import type { SessionChannel } from '../src/surfaces/mcp/session-channel.js';
import {
  GatewaySkills,
  type SkillServer,
  type SkillView,
} from '../src/surfaces/mcp/skills/gateway-skills.js';
import { skillGate } from '../src/surfaces/mcp/skills/skill-gate.js';
import { interleavedRounds, machine, ms, option, runIfMain, summarize, table } from './lib/common.js';

const SKILLS_PER_SERVER = 50;
const CALLER = { identity: 'carol', authMethod: 'api_key' as const };

function server(name: string): SkillServer {
  const skills: Skill[] = Array.from({ length: SKILLS_PER_SERVER }, (_, i) => {
    const uri = `skill://skill-${i}/SKILL.md`;
    return {
      uri,
      frontmatter: { name: `skill-${i}`, description: `Skill ${i} of ${name}` },
      resources: [{ uri, digest: `sha256:${'0'.repeat(64)}`, size: 10 }],
    };
  });
  const listing: Promise<SkillListing> = Promise.resolve({ skills, ttlMs: 60_000 });
  const downstream = {
    offered: true,
    directoryRead: false,
    list: () => listing,
  } as unknown as DownstreamSkills;
  return { name, namespace: name, sourceId: `mcp:${name}`, prefix: true, skills: downstream };
}

/** 19 rules about tools, then one that denies this caller one skill of `alpha` by name. */
function rules(): PolicyRuleDefinition[] {
  const other = Array.from({ length: 19 }, (_, i) => ({
    name: `tool-rule-${i}`,
    effect: 'deny' as const,
    tools: [`ns${i}:*`],
    when: 'args.amount > 100',
  }));
  return [
    ...other,
    {
      name: 'no-skill-7',
      effect: 'deny',
      tools: ['alpha:skills/get'],
      when: 'caller.identity == "carol" && args.name == "skill-7"',
    },
  ];
}

export async function run() {
  const n = option('skills-policy-n', 2000);
  const warmup = option('warmup', 200);
  const blockSize = option('block', 100);
  const servers = [server('alpha'), server('beta')];
  const skills = new GatewaySkills({
    servers: () => servers,
    configured: () => undefined,
    log: silentLogger,
  });
  const session = { forCall: () => ({}) } as unknown as SessionChannel;
  const scope = { tools: () => [], get: () => ({}) as never };
  const gated = (policy: PolicyEnforcement | undefined): SkillView => ({
    scope,
    confined: false,
    gate: skillGate(new ActionGate({ middlewares: [], policy }), CALLER, session),
  });
  const enforcement = (hideDenied: boolean) =>
    new PolicyEnforcement({ engine: new PolicyEngine({ rules: rules(), hideDenied }) });
  const variants = [
    { key: 'no-gate', label: 'no skill gate (before)', view: { scope, confined: false } as SkillView },
    { key: 'no-policies', label: 'gate, no policies', view: gated(new PolicyEnforcement()) },
    { key: 'hide-off', label: '20 rules, `hideDenied: false`', view: gated(enforcement(false)) },
    { key: 'rules', label: '20 rules, `hideDenied` (one skill hidden)', view: gated(enforcement(true)) },
  ];
  const counts = new Map<string, number>();
  for (const variant of variants) counts.set(variant.key, (await skills.list(variant.view)).skills.length);
  if (counts.get('rules') !== 2 * SKILLS_PER_SERVER - 1 || counts.get('hide-off') !== 2 * SKILLS_PER_SERVER) {
    throw new Error(`unexpected listings: ${JSON.stringify([...counts])}`);
  }
  const { samples } = await interleavedRounds(variants, {
    n,
    warmup,
    blockSize,
    block: async (variant, count, sink) => {
      for (let i = 0; i < count; i++) {
        const start = performance.now();
        await skills.list(variant.view);
        sink?.push(performance.now() - start);
      }
    },
  });
  return {
    machine: machine(),
    n,
    skills: 2 * SKILLS_PER_SERVER,
    rows: variants.map((variant) => ({
      key: variant.key,
      label: variant.label,
      listed: counts.get(variant.key) ?? 0,
      ...summarize(samples[variant.key]!),
    })),
  };
}

function render(results: Awaited<ReturnType<typeof run>>): string {
  const base = results.rows.find((row) => row.key === 'no-gate')!;
  const { machine: m } = results;
  return [
    '## Policies per skill: `skills/list` cost',
    '',
    `${results.n} lists of ${results.skills} skills per variant, interleaved; Node ${m.node}, ${m.nproc} cores, load ${m.loadavg}, commit ${m.git}.`,
    '',
    table(
      ['variant', 'listed', 'p50 ms', 'p95 ms', '× no gate p50'],
      results.rows.map((row) => [
        row.label,
        row.listed,
        ms(row.p50),
        ms(row.p95),
        (row.p50 / base.p50).toFixed(2),
      ]),
    ),
  ].join('\n');
}

runIfMain(import.meta.url, run, render);
