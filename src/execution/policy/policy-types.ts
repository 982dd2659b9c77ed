import type { Tool } from '../../foundation/model/tool.js';
import type { CallerContext, CallSurface } from '../../foundation/ports/tool-backend.js';

/** What a rule decides when it matches: run the call, refuse it, or hold it until a person answers. */
export type PolicyEffect = 'allow' | 'deny' | 'approve';

/** The effects, in the order the config documents them. */
export const POLICY_EFFECTS = ['allow', 'deny', 'approve'] as const satisfies readonly PolicyEffect[];

/** One `policies.rules` entry as the config gives it (see docs/POLICY.md). */
export interface PolicyRuleDefinition {
  /** Unique among the rules; named in denials, logs, the audit trail and `policy test`. */
  name: string;
  effect: PolicyEffect;
  /** Tool ids or `*` globs (`github:*`); absent: every tool. */
  tools?: readonly string[] | undefined;
  /** A CEL expression over `caller`, `tool`, `args`, `surface`, `now`; absent: always. */
  when?: string | undefined;
  /** Why, shown to the caller in a denial and to whoever answers an approval. */
  reason?: string | undefined;
}

/** One call as the rules see it. */
export interface PolicyCall {
  tool: Tool;
  /** The arguments after validation, in the caller's (public) shape. */
  args: Record<string, unknown>;
  caller: CallerContext;
  /** Where the call came in; a caller without one counts as `mcp`. */
  surface: CallSurface;
  /** The time of the decision; default now. */
  now?: Date;
}

/** Which engine made a decision. */
export type PolicyEngineName = 'cel' | 'cedar' | 'preset' | 'default';

/** The outcome of the rules for one call. */
export interface PolicyDecision {
  effect: PolicyEffect;
  /** The rule (or Cedar policy id) that decided; absent for the default allow. */
  rule?: string;
  engine: PolicyEngineName;
  reason?: string;
  /** A rule's expression failed while evaluated: it denies, and this says why (for logs only). */
  error?: string;
}
