import { z } from 'zod';
import { compileRule, RuleCompileError } from '../execution/policy/cel-rule.js';
import { POLICY_PRESETS } from '../execution/policy/policy-engine.js';
import { POLICY_EFFECTS } from '../execution/policy/policy-types.js';
import { isRecord } from '../foundation/util/is-record.js';
import { bool, looseObject, nonEmptyString } from './schema-primitives.js';

/*
 * The `policies` section: who may call what with which arguments (docs/POLICY.md). Rules are CEL,
 * compiled here once so that a rule that does not compile is refused at load, naming the rule
 * and the position in its expression; the engine compiles them again from the frozen config.
 */

const SURFACES = ['mcp', 'rest', 'a2a', 'code', 'chain', 'skill', 'cli'] as const;

const ruleExampleSchema = z
  .strictObject({
    as: nonEmptyString().describe(
      "The identity calling (an `auth.apiKeys` name takes that key's toolsets and admin flag).",
    ),
    tool: nonEmptyString().describe('The tool id called.'),
    args: looseObject().default({}).describe('The arguments of the example call.'),
    surface: z.enum(SURFACES).default('mcp').describe('The surface of the call; default `mcp`.'),
    expect: z
      .enum(POLICY_EFFECTS)
      .describe(
        'The decision expected of the whole policy (all rules, the preset and Cedar), not only this rule.',
      ),
  })
  .describe('One worked example of a rule, checked by `aperture config validate`.');

const ruleSchema = z
  .strictObject({
    name: nonEmptyString().describe(
      "The rule's name, in decisions, audit lines and `aperture policy test` output.",
    ),
    effect: z
      .enum(POLICY_EFFECTS)
      .describe('`allow`, `deny` (refused with `forbidden`) or `approve` (a person decides).'),
    tools: z
      .array(nonEmptyString())
      .optional()
      .describe('Tool ids or `*` globs (`github:*`); default every tool.'),
    when: nonEmptyString()
      .optional()
      .describe('CEL over `caller`, `tool`, `args`, `surface`, `now`; default always.'),
    reason: nonEmptyString()
      .optional()
      .describe('Shown to the caller in a denial and to whoever answers an approval.'),
    examples: z
      .array(ruleExampleSchema)
      .optional()
      .describe(
        'Worked examples of calls and the decision each expects, checked by `aperture config validate`.',
      ),
  })
  .describe('One rule: first match decides.');

export const policiesSection = z
  .preprocess(
    (value) => (Array.isArray(value) ? { rules: value } : value),
    z.strictObject({
      rules: z
        .array(ruleSchema)
        .default([])
        .describe('The rules, in order: the first that matches a call decides.'),
      preset: z
        .enum(POLICY_PRESETS)
        .optional()
        .describe(
          '`cautious`: after the rules, ask before any tool not declared read-only or non-destructive.',
        ),
      cedar: nonEmptyString()
        .optional()
        .describe('A Cedar policy file (relative to the config file); a deny from Cedar wins over any rule.'),
      cedarSchema: nonEmptyString()
        .optional()
        .describe('The Cedar schema file the policies are validated against at load.'),
      hideDenied: bool()
        .default(true)
        .describe(
          'Leave a tool denied to a caller for every argument out of its lists, search and describe, and a skill whose `skills/get` is denied out of `skills/list`, search and resource lists (both then answer as unknown).',
        ),
    }),
  )
  .superRefine((value, ctx) => {
    if (!isRecord(value) || !Array.isArray(value.rules)) return;
    const seen = new Map<string, number>();
    for (const [index, rule] of value.rules.entries()) {
      const first = seen.get(rule.name);
      if (first !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['rules', index, 'name'],
          message: `duplicate rule name "${rule.name}" (also rules[${first}])`,
        });
        continue;
      }
      seen.set(rule.name, index);
      try {
        compileRule(rule);
      } catch (error) {
        if (!(error instanceof RuleCompileError)) throw error;
        ctx.addIssue({
          code: 'custom',
          path: ['rules', index, 'when'],
          message: error.message,
        });
      }
    }
    if (value.cedarSchema !== undefined && value.cedar === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['cedarSchema'],
        message: 'needs "cedar" (the policy file it types)',
      });
    }
  })
  .prefault({})
  .describe(
    '`policies`: the rules (a bare list is the short form of `{ rules: [...] }`), an optional Cedar policy file, the preset, and whether denied tools are hidden. Without it every call is allowed, as before.',
  );

/** The parsed `policies` section. */
export type PoliciesConfig = z.output<typeof policiesSection>;
