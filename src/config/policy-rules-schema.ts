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

/** One worked example of a rule, checked by `aperture config validate`. */
const ruleExampleSchema = z.strictObject({
  /** The identity calling (an `auth.apiKeys` name takes that key's toolsets and admin flag). */
  as: nonEmptyString(),
  /** The tool id called. */
  tool: nonEmptyString(),
  args: looseObject().default({}),
  /** The surface of the call; default `mcp`. */
  surface: z.enum(SURFACES).default('mcp'),
  /** The decision expected of the whole policy (all rules, the preset and Cedar), not only this rule. */
  expect: z.enum(POLICY_EFFECTS),
});

/** One rule: first match decides. */
const ruleSchema = z.strictObject({
  name: nonEmptyString(),
  effect: z.enum(POLICY_EFFECTS),
  /** Tool ids or `*` globs (`github:*`); default every tool. */
  tools: z.array(nonEmptyString()).optional(),
  /** CEL over `caller`, `tool`, `args`, `surface`, `now`; default always. */
  when: nonEmptyString().optional(),
  /** Shown to the caller in a denial and to whoever answers an approval. */
  reason: nonEmptyString().optional(),
  examples: z.array(ruleExampleSchema).optional(),
});

/**
 * `policies`: the rules (a bare list is the short form of `{ rules: [...] }`), an optional Cedar
 * policy file, the preset, and whether denied tools are hidden. Without it every call is allowed,
 * as before.
 */
export const policiesSection = z
  .preprocess(
    (value) => (Array.isArray(value) ? { rules: value } : value),
    z.strictObject({
      rules: z.array(ruleSchema).default([]),
      /** `cautious`: after the rules, ask before any tool not declared read-only or non-destructive. */
      preset: z.enum(POLICY_PRESETS).optional(),
      /** A Cedar policy file (relative to the config file); a deny from Cedar wins over any rule. */
      cedar: nonEmptyString().optional(),
      /** The Cedar schema file the policies are validated against at load. */
      cedarSchema: nonEmptyString().optional(),
      /** Leave a tool denied to a caller for every argument out of its lists, search and describe. */
      hideDenied: bool().default(true),
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
  .prefault({});

/** The parsed `policies` section. */
export type PoliciesConfig = z.output<typeof policiesSection>;
