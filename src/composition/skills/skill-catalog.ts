import { isDeepStrictEqual } from 'node:util';
import type { Catalog } from '../../catalog/catalog.js';
import type { CatalogEntry } from '../../catalog/catalog-entry.js';
import { normalizeResult } from '../../execution/normalize-result.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { normalizeTags } from '../../foundation/model/tags.js';
import type { JsonSchema, Tool, ToolAnnotations, ToolResult } from '../../foundation/model/tool.js';
import { type Logger, silentLogger } from '../../foundation/ports/logger.js';
import type { ExecutionContext, ToolBackend } from '../../foundation/ports/tool-backend.js';
import type { SchemaValidator } from '../../foundation/schema/schema-validator.js';
import { type CompiledSkill, compileSkill } from './compile-skill.js';
import type { ScopeOfCaller } from './scope-of-caller.js';
import { deriveSkillHints, type SkillHints } from './skill-annotations.js';
import { SKILL_NAMESPACE, type SkillDefinition, type SkillLimits } from './skill-definition.js';
import { type PlanScope, planSkill, type SkillPlan } from './skill-plan.js';
import { runSkill } from './skill-runner.js';

/** The catalog source that owns the skill tools. */
export const SKILLS_SOURCE_ID = 'skills';

/**
 * Extra time the pipeline gives a skill tool past the skill's own `timeoutMs`: the run enforces
 * its limit itself, with an error naming the step it was in; the pipeline's timer only backs it up.
 */
const PIPELINE_GRACE_MS = 1_000;

export interface SkillCatalogOptions {
  catalog: Catalog;
  skills: readonly SkillDefinition[];
  /** The caller's scope, in which a skill tool's steps run (see `ScopeOfCaller`). */
  scopeFor: ScopeOfCaller;
  validator: SchemaValidator;
  log?: Logger;
}

/** What `describe_skill` answers. */
export interface SkillDescription {
  name: string;
  tool_id: string;
  title?: string;
  description: string;
  tags: string[];
  input: JsonSchema;
  steps: {
    id: string;
    tool: string;
    description?: string;
    args: unknown;
    when?: string;
    dependsOn: string[];
  }[];
  output?: unknown;
  annotations: ToolAnnotations;
  limits: SkillLimits;
}

/**
 * The configured skills: compiled once at start, each registered in the catalog as the tool
 * `skill:<name>` — so search finds it, `run_tool` and every surface run it, through the pipeline
 * like any tool. Its annotations are derived from its steps' tools and recomputed whenever the
 * catalog changes (steps may name tools of downstream servers that connect later).
 */
export class SkillCatalog {
  private readonly skills = new Map<string, CompiledSkill>();
  /** The entry registered per skill and the hints it was made with (unchanged hints: same entry). */
  private readonly registered = new Map<string, { key: string; entry: CatalogEntry }>();
  private readonly log: Logger;
  private detach: (() => void) | undefined;

  /** @throws GatewayError `config_invalid` for a skill that does not compile or a duplicate name */
  constructor(private readonly options: SkillCatalogOptions) {
    this.log = options.log ?? silentLogger;
    for (const [name, skill] of this.compile(options.skills)) this.skills.set(name, skill);
  }

  /**
   * Takes new definitions (a config reload) and republishes the skill tools: an unchanged skill
   * keeps its compiled form and catalog entry; a changed one is compiled and served anew, a removed
   * one leaves the catalog. All are compiled before anything changes.
   *
   * @throws GatewayError `config_invalid` as the constructor does; the skills in force then stay
   */
  replace(definitions: readonly SkillDefinition[]): void {
    const kept = new Map<string, CompiledSkill>();
    for (const definition of definitions) {
      const running = this.skills.get(definition.name);
      if (running && isDeepStrictEqual(running.definition, definition)) kept.set(definition.name, running);
    }
    const fresh = this.compile(definitions.filter((definition) => !kept.has(definition.name)));
    const names = new Set(definitions.map((definition) => definition.name));
    this.skills.clear();
    for (const definition of definitions) {
      this.skills.set(
        definition.name,
        kept.get(definition.name) ?? (fresh.get(definition.name) as CompiledSkill),
      );
    }
    for (const name of [...this.registered.keys()]) {
      if (!names.has(name) || !kept.has(name)) this.registered.delete(name);
    }
    this.refresh(true);
  }

  private compile(definitions: readonly SkillDefinition[]): Map<string, CompiledSkill> {
    const compiled = new Map<string, CompiledSkill>();
    definitions.forEach((definition, index) => {
      if (compiled.has(definition.name)) {
        throw new GatewayError(
          'config_invalid',
          `skills[${index}].name: duplicate skill "${definition.name}"`,
          {
            details: { path: `skills[${index}].name` },
          },
        );
      }
      compiled.set(definition.name, compileSkill(definition, this.options.validator));
    });
    return compiled;
  }

  get size(): number {
    return this.skills.size;
  }

  /** Every skill, in config order. */
  all(): CompiledSkill[] {
    return [...this.skills.values()];
  }

  get(name: string): CompiledSkill | undefined {
    return this.skills.get(name);
  }

  /** The skills whose tool the scope can see, in config order. */
  visibleIn(scope: PlanScope): CompiledSkill[] {
    return this.all().filter((skill) => isVisible(scope, skill.toolId));
  }

  /** The skill `name` if the scope can see its tool; `tool_not_found` otherwise. */
  find(name: string, scope: PlanScope): CompiledSkill {
    const skill = this.skills.get(name);
    if (!skill || !isVisible(scope, skill.toolId)) {
      throw new GatewayError('tool_not_found', `No skill "${name}"; list_skills lists the skills`, {
        details: { skill: name },
      });
    }
    return skill;
  }

  plan(skill: CompiledSkill, scope: PlanScope, inputs?: unknown): SkillPlan {
    return planSkill(skill, scope, this.options.validator, inputs);
  }

  /** The skill tool's annotations as the catalog currently holds them. */
  annotations(skill: CompiledSkill): ToolAnnotations {
    return this.options.catalog.get(skill.toolId)?.tool.annotations ?? this.hints(skill);
  }

  describe(skill: CompiledSkill): SkillDescription {
    const described: SkillDescription = {
      name: skill.name,
      tool_id: skill.toolId,
      description: skill.description,
      tags: [...skill.tags],
      input: skill.input,
      steps: skill.steps.map((step) => ({
        id: step.id,
        tool: step.tool,
        ...(step.description === undefined ? {} : { description: step.description }),
        args: step.definition.args ?? {},
        ...(step.when ? { when: step.when.source } : {}),
        dependsOn: [...step.dependsOn],
      })),
      annotations: this.annotations(skill),
      limits: skill.limits,
    };
    if (skill.title !== undefined) described.title = skill.title;
    if (skill.definition.output !== undefined) described.output = skill.definition.output;
    return described;
  }

  /** Registers the skill tools and keeps their annotations in step with the catalog until `close`. */
  attach(): void {
    if (this.detach) return;
    this.refresh();
    this.detach = this.options.catalog.onChange(() => this.refresh());
  }

  close(): void {
    this.detach?.();
    this.detach = undefined;
  }

  /**
   * Recomputes every skill's annotations and republishes the entries that changed. Idempotent: a
   * skill whose hints did not change keeps its entry object, so the catalog sees no change and the
   * change event this causes does not loop.
   */
  refresh(force = false): void {
    let changed = false;
    const entries: CatalogEntry[] = [];
    for (const skill of this.skills.values()) {
      const hints = this.hints(skill);
      const key = JSON.stringify(hints);
      let registered = this.registered.get(skill.name);
      if (registered?.key !== key) {
        registered = {
          key,
          entry: {
            tool: skillTool(skill, hints),
            backend: registered?.entry.backend ?? new SkillBackend(skill, this.options),
          },
        };
        this.registered.set(skill.name, registered);
        changed = true;
      }
      entries.push(registered.entry);
    }
    if (!changed && !force) return;
    const refused = this.options.catalog.replaceSource(SKILLS_SOURCE_ID, entries);
    if (refused.length > 0) {
      this.log.warn(
        { refused },
        'skill tool ids already registered by another source; those skills are not served',
      );
    }
  }

  private hints(skill: CompiledSkill): SkillHints {
    return deriveSkillHints(skill.steps.map((step) => this.options.catalog.get(step.tool)?.tool));
  }
}

/** Whether the scope sees the skill's tool (and not another source's tool of that id). */
function isVisible(scope: PlanScope, toolId: string): boolean {
  try {
    return scope.get(toolId).origin.kind === 'skill';
  } catch {
    return false;
  }
}

/** The catalog's view of a skill. */
function skillTool(skill: CompiledSkill, hints: SkillHints): Tool {
  const steps = skill.steps.map((step) => `${step.id} (${step.tool})`).join(', ');
  const tool: Tool = {
    id: skill.toolId,
    namespace: SKILL_NAMESPACE,
    name: skill.name,
    description: skill.description,
    inputSchema: skill.input,
    annotations: { ...(skill.title === undefined ? {} : { title: skill.title }), ...hints },
    tags: normalizeTags(['skill', ...skill.tags]),
    metadata: {
      category: 'skill',
      sideEffect: !hints.readOnlyHint,
      extra: { timeoutMs: skill.limits.timeoutMs + PIPELINE_GRACE_MS, steps: skill.steps.length },
    },
    examples: [],
    notes: `A skill (a declared workflow): runs ${steps} in this order. describe_skill shows its steps; plan_skill checks them without running.`,
    // Each skill is its own origin: per-source policies (circuit breakers) then judge one skill by
    // its own runs, and one skill that keeps timing out cannot shut the others off.
    origin: { sourceId: skill.toolId, kind: 'skill', originalName: skill.name },
  };
  if (skill.title !== undefined) tool.title = skill.title;
  return tool;
}

/**
 * Runs a skill for the pipeline: the skill tool has passed resolution, authorization, input
 * validation and the middlewares like any tool; its steps then run in the caller's scope, found
 * from the call's `caller` through the `ScopeOfCaller` port.
 */
class SkillBackend implements ToolBackend {
  constructor(
    private readonly skill: CompiledSkill,
    private readonly options: Pick<SkillCatalogOptions, 'scopeFor' | 'validator'>,
  ) {}

  async execute(_tool: Tool, args: Record<string, unknown>, ctx: ExecutionContext): Promise<unknown> {
    const scope = this.options.scopeFor(ctx.caller);
    const run = await runSkill(
      this.skill,
      args,
      scope,
      {
        // Its steps are the skill's calls, whichever surface ran the skill: policy rules can tell.
        caller: { ...ctx.caller, surface: 'skill' },
        signal: ctx.signal,
        // Its steps are part of this call: a shutdown lets them run while it finishes.
        parent: ctx.signal,
        progress: ctx.progress,
        ...(ctx.channel ? { channel: ctx.channel } : {}),
      },
      this.options.validator,
    );
    ctx.log.debug({ skill: this.skill.name, steps: run.steps }, 'skill run');
    return this.skill.output ? outputResult(run.value) : run.value;
  }
}

/**
 * The result of an `output` mapping. An object is always structured content — even one with a
 * `content` key, which the pipeline would otherwise take for a whole MCP result.
 */
function outputResult(value: unknown): ToolResult {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    return {
      content: [{ type: 'text', text: JSON.stringify(value) }],
      structuredContent: value as Record<string, unknown>,
    };
  }
  return normalizeResult(value);
}
