import type { Tool } from '../../foundation/model/tool.js';
import { type CallerContext, callerKey } from '../../foundation/ports/tool-backend.js';
import type { CedarPolicies } from './cedar-policies.js';
import { type CelInput, type CompiledRule, compileRule } from './cel-rule.js';
import { callerInput, celInput, toolInput } from './policy-input.js';
import type { PolicyCall, PolicyDecision, PolicyRuleDefinition } from './policy-types.js';

/** The presets `policies.preset` names. */
export const POLICY_PRESETS = ['cautious'] as const;
export type PolicyPreset = (typeof POLICY_PRESETS)[number];

export interface PolicyEngineOptions {
  /** The CEL rules, in order: the first that matches decides. Default none. */
  rules?: readonly PolicyRuleDefinition[] | undefined;
  /** `cautious`: after the rules, ask before any tool not known to be harmless. */
  preset?: PolicyPreset | undefined;
  /** The Cedar policy set, when one is configured; its deny wins over any rule. */
  cedar?: CedarPolicies | undefined;
  /** Hide a tool denied to a caller for every argument from its listings. Default true. */
  hideDenied?: boolean | undefined;
}

/** The default decision: no rule matched and nothing else objects. */
const DEFAULT_ALLOW: PolicyDecision = Object.freeze({ effect: 'allow', engine: 'default' });

/** The preset's rule name, as decisions and `policy test` show it. */
const CAUTIOUS_RULE = 'preset:cautious';

/** Callers whose visibility is cached at once; past it the cache starts over. */
const MAX_CACHED_CALLERS = 1000;
/** Tool ids whose matching rules are cached at once; past it the cache starts over. */
const MAX_CACHED_TOOL_IDS = 20_000;

/**
 * The policy rules of one config, compiled once (`policies`): CEL rules evaluated in order, first
 * match decides, then the preset, then default allow; a Cedar policy set beside them, whose deny
 * wins. Immutable: a reload builds a new engine. Throws `RuleCompileError` for a rule that does
 * not compile.
 */
export class PolicyEngine {
  private readonly rules: readonly CompiledRule[];
  private readonly preset: PolicyPreset | undefined;
  private readonly cedar: CedarPolicies | undefined;
  private readonly hideDenied: boolean;
  /** The rules whose `tools` match an id, in order (matching globs per call would cost more than CEL). */
  private readonly rulesByTool = new Map<string, readonly CompiledRule[]>();
  /** Per caller, per catalog tool object: hidden or not. A changed tool is a new object. */
  private readonly hidden = new Map<string, WeakMap<Tool, boolean>>();

  constructor(options: PolicyEngineOptions = {}) {
    this.rules = (options.rules ?? []).map(compileRule);
    this.preset = options.preset;
    this.cedar = options.cedar;
    this.hideDenied = options.hideDenied ?? true;
  }

  /** True when anything can refuse or hold a call (otherwise the pipeline skips the engine). */
  get active(): boolean {
    return this.rules.length > 0 || this.preset !== undefined || this.cedar !== undefined;
  }

  /** The decision for one call: which effect, and the rule (or Cedar policy) that made it. */
  decide(call: PolicyCall): PolicyDecision {
    const rules = this.rulesFor(call.tool.id);
    let decision: PolicyDecision | undefined;
    let input: CelInput | undefined;
    for (const rule of rules) {
      if (rule.when) {
        input ??= celInput(call);
        if (!rule.mayMatch(input)) continue;
        let result: unknown;
        try {
          result = rule.when(input);
        } catch (error) {
          decision = failed(rule, error instanceof Error ? error.message : String(error));
          break;
        }
        if (result === false) continue;
        if (result !== true) {
          decision = failed(rule, `"when" gave ${typeof result}, not a boolean`);
          break;
        }
      }
      decision = {
        effect: rule.effect,
        rule: rule.name,
        engine: 'cel',
        ...(rule.reason === undefined ? {} : { reason: rule.reason }),
      };
      break;
    }
    if (decision?.effect === 'deny') return decision;
    if (this.cedar) {
      const cedar = this.cedar.authorize({
        action: 'call_tool',
        caller: call.caller,
        tool: call.tool,
        surface: call.surface,
        args: call.args,
        ...(call.now ? { now: call.now } : {}),
      });
      if (!cedar.allowed) {
        return {
          effect: 'deny',
          rule: cedar.policies.length > 0 ? cedar.policies.join(', ') : '(no Cedar policy permits it)',
          engine: 'cedar',
          ...(cedar.errors.length > 0 ? { error: cedar.errors.join('; ') } : {}),
        };
      }
    }
    if (decision) return decision;
    if (this.preset === 'cautious' && !harmless(call.tool)) {
      return {
        effect: 'approve',
        rule: CAUTIOUS_RULE,
        engine: 'preset',
        reason: 'The tool may change or delete things (it is not declared read-only or non-destructive)',
      };
    }
    return DEFAULT_ALLOW;
  }

  /**
   * Whether `tool` is hidden from `caller`: denied for every argument (`policies.hideDenied`).
   * Sound, never guessing: the rules are walked in order as `decide` would, and a rule whose
   * `when` names `args`, `now` or `surface` cannot be decided without a call — one that could
   * allow or ask keeps the tool visible; one that could deny is passed over (the calls it does
   * not match reach the next rules). A rule without such names decides for every call: its effect
   * says. A Cedar `forbid` of action `list_tool` hides too. Cached per caller and tool.
   */
  hides(tool: Tool, caller: CallerContext): boolean {
    const key = this.visibilityKey(caller);
    if (key === undefined) return false;
    let known = this.hidden.get(key);
    if (!known) {
      if (this.hidden.size >= MAX_CACHED_CALLERS) this.hidden.clear();
      known = new WeakMap();
      this.hidden.set(key, known);
    }
    let hidden = known.get(tool);
    if (hidden === undefined) {
      hidden = this.computeHidden(tool, caller);
      known.set(tool, hidden);
    }
    return hidden;
  }

  /**
   * Whether one call, its arguments all known, is hidden from its caller (`policies.hideDenied`):
   * its tool is hidden ({@link hides}), or the call itself is denied. For listings whose every
   * entry stands for one call — a skill is its `skills/get` with `{ name }` — so an entry whose
   * call would be denied is left out as if it did not exist. False at once (no rule evaluated)
   * when nothing is ever hidden.
   */
  hidesCall(call: PolicyCall): boolean {
    if (this.visibilityKey(call.caller) === undefined) return false;
    return this.hides(call.tool, call.caller) || this.decide(call).effect === 'deny';
  }

  /**
   * What of `caller` its visibility depends on, as a key (callers with equal keys see the same
   * tools); undefined when nothing is ever hidden (no policies, or `hideDenied: false`).
   */
  visibilityKey(caller: CallerContext): string | undefined {
    if (!this.hideDenied || !this.active) return undefined;
    return visibilityKey(caller);
  }

  private computeHidden(tool: Tool, caller: CallerContext): boolean {
    let input: CelInput | undefined;
    for (const rule of this.rulesFor(tool.id)) {
      if (rule.when && rule.perCall) {
        if (rule.effect !== 'deny') return false;
        continue;
      }
      if (rule.when) {
        input ??= {
          caller: callerInput(caller),
          tool: toolInput(tool),
          args: {},
          surface: caller.surface ?? 'mcp',
          now: new Date(),
        };
        if (!rule.mayMatch(input)) continue;
        let result: unknown;
        try {
          result = rule.when(input);
        } catch {
          // It fails for every call of this caller: every call is denied.
          return true;
        }
        if (result === false) continue;
        if (result !== true) return true;
      }
      if (rule.effect === 'deny') return true;
      break;
    }
    if (!this.cedar?.listingNeedsCedar(caller)) return false;
    return !this.cedar.authorize({
      action: 'list_tool',
      caller,
      tool,
      surface: caller.surface ?? 'mcp',
    }).allowed;
  }

  private rulesFor(toolId: string): readonly CompiledRule[] {
    let rules = this.rulesByTool.get(toolId);
    if (!rules) {
      rules = this.rules.filter((rule) => rule.matchesTool(toolId));
      if (this.rulesByTool.size >= MAX_CACHED_TOOL_IDS) this.rulesByTool.clear();
      this.rulesByTool.set(toolId, rules);
    }
    return rules;
  }
}

/** A rule whose expression failed: it denies (fail closed), and says why for the log. */
function failed(rule: CompiledRule, error: string): PolicyDecision {
  return {
    effect: 'deny',
    rule: rule.name,
    engine: 'cel',
    ...(rule.reason === undefined ? {} : { reason: rule.reason }),
    error,
  };
}

/** The cautious preset's test: read-only, or declared not destructive. */
function harmless(tool: Tool): boolean {
  return tool.annotations.readOnlyHint === true || tool.annotations.destructiveHint === false;
}

/** Everything of a caller a visibility decision may read. */
function visibilityKey(caller: CallerContext): string {
  return JSON.stringify([
    callerKey(caller),
    caller.toolsets ?? null,
    caller.toolset ?? null,
    caller.admin === true,
    caller.surface ?? null,
    caller.claims ?? null,
  ]);
}
