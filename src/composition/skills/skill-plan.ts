import { GatewayError, toGatewayError } from '../../foundation/model/gateway-error.js';
import type { Tool, ToolAnnotations } from '../../foundation/model/tool.js';
import { withDefaults } from '../../foundation/schema/schema-defaults.js';
import {
  formatIssues,
  type SchemaIssue,
  type SchemaValidator,
} from '../../foundation/schema/schema-validator.js';
import type { CompiledSkill, CompiledStep } from './compile-skill.js';
import { evaluateExpression, formatReference, isTruthy, type Reference } from './skill-expression.js';
import { resolvePartially } from './skill-template.js';

/** One step as a plan sees it. */
export interface PlannedStep {
  index: number;
  id: string;
  tool: string;
  /** Whether the tool exists in the caller's scope. */
  found: boolean;
  annotations?: ToolAnnotations;
  /**
   * `always` (no `when`); `yes` / `no` when the condition could be decided from the given inputs;
   * `depends` when it needs earlier steps' results or inputs that were not given.
   */
  runs: 'always' | 'yes' | 'no' | 'depends';
  when?: string;
  /** Earlier steps whose results this step uses. */
  dependsOn: string[];
  /** The arguments as far as they are known now; parts listed in `deferred` are left out. */
  args: unknown;
  /** Arguments known only at run time: their JSON Pointer and the references they wait for. */
  deferred: { path: string; references: string[] }[];
  /**
   * `valid`: all arguments known and valid; `partial`: the known ones are valid; `invalid`: some
   * known argument breaks the tool's input schema (see `issues`); `unchecked`: nothing to check
   * against (tool missing, arguments all deferred, or the step will be skipped).
   */
  check: 'valid' | 'partial' | 'invalid' | 'unchecked';
  issues?: SchemaIssue[];
}

/** A problem that would make a run fail. */
export interface PlanProblem {
  code: 'tool_not_found' | 'validation_input';
  message: string;
  step?: string;
  index?: number;
  issues?: SchemaIssue[];
}

/** What `plan_skill` answers. */
export interface SkillPlan {
  skill: string;
  tool_id: string;
  /** True when no problem was found (a run may still fail on results only known at run time). */
  valid: boolean;
  /** Whether inputs were given, and if so whether they are valid. */
  inputs: { given: boolean; valid?: boolean; issues?: SchemaIssue[] };
  steps: PlannedStep[];
  problems: PlanProblem[];
  limits: CompiledSkill['limits'];
}

/** What a plan needs of the caller's scope. */
export interface PlanScope {
  get(toolId: string): Tool;
}

/**
 * Resolves and checks a skill without running anything: every step's tool must exist in the
 * caller's scope; arguments that are literal — or depend only on the given inputs — are validated
 * against the tool's input schema; arguments that depend on earlier steps are reported as deferred
 * (the rest of the arguments is still validated, ignoring what the deferred parts would supply).
 */
export function planSkill(
  skill: CompiledSkill,
  scope: PlanScope,
  validator: SchemaValidator,
  rawInputs?: unknown,
): SkillPlan {
  const problems: PlanProblem[] = [];
  const given = rawInputs !== undefined;
  let inputs: Record<string, unknown> | undefined;
  const inputReport: SkillPlan['inputs'] = { given };
  if (given) {
    const outcome =
      typeof rawInputs === 'object' && rawInputs !== null && !Array.isArray(rawInputs)
        ? validator.validate(skill.input, rawInputs)
        : { valid: false as const, issues: [{ path: '/', message: 'must be object' }] };
    inputReport.valid = outcome.valid;
    if (outcome.valid) inputs = withDefaults(skill.input, rawInputs) as Record<string, unknown>;
    else {
      inputReport.issues = outcome.issues;
      problems.push({
        code: 'validation_input',
        message: `Invalid inputs for skill "${skill.name}": ${formatIssues(outcome.issues)}`,
        issues: outcome.issues,
      });
    }
  }

  const canResolve = (ref: Reference) => ref.root === 'inputs' && inputs !== undefined;
  const resolve = (ref: Reference): unknown => {
    let value: unknown = inputs;
    for (const segment of ref.path) {
      if (typeof value !== 'object' || value === null || !Object.hasOwn(value, segment)) return undefined;
      value = (value as Record<string | number, unknown>)[segment];
    }
    return value;
  };

  const steps = skill.steps.map((step) => {
    const planned = planStep(step, scope, validator, canResolve, resolve);
    if (!planned.found) {
      problems.push({
        code: 'tool_not_found',
        step: step.id,
        index: step.index,
        message: `Step "${step.id}" runs "${step.tool}", which does not exist in this scope`,
      });
    } else if (planned.check === 'invalid') {
      problems.push({
        code: 'validation_input',
        step: step.id,
        index: step.index,
        message: `Step "${step.id}": invalid arguments for ${step.tool}: ${formatIssues(planned.issues ?? [])}`,
        issues: planned.issues ?? [],
      });
    }
    return planned;
  });

  return {
    skill: skill.name,
    tool_id: skill.toolId,
    valid: problems.length === 0,
    inputs: inputReport,
    steps,
    problems,
    limits: skill.limits,
  };
}

function planStep(
  step: CompiledStep,
  scope: PlanScope,
  validator: SchemaValidator,
  canResolve: (ref: Reference) => boolean,
  resolve: (ref: Reference) => unknown,
): PlannedStep {
  let tool: Tool | undefined;
  try {
    tool = scope.get(step.tool);
  } catch (error) {
    if (toGatewayError(error).code !== 'tool_not_found') throw error;
  }
  let runs: PlannedStep['runs'] = 'always';
  if (step.when) {
    runs = step.when.references.every(canResolve)
      ? isTruthy(evaluateExpression(step.when, resolve))
        ? 'yes'
        : 'no'
      : 'depends';
  }
  const { value, deferred } = resolvePartially(step.args, canResolve, resolve);
  const planned: PlannedStep = {
    index: step.index,
    id: step.id,
    tool: step.tool,
    found: tool !== undefined,
    ...(tool ? { annotations: tool.annotations } : {}),
    runs,
    ...(step.when ? { when: step.when.source } : {}),
    dependsOn: [...step.dependsOn],
    args: value ?? null,
    deferred: deferred.map((d) => ({ path: d.pointer, references: d.references.map(formatReference) })),
    check: 'unchecked',
  };
  const wholeDeferred = deferred.some((d) => d.pointer === '');
  if (!tool || runs === 'no' || wholeDeferred) return planned;
  const outcome = validateKnown(tool, value, validator);
  const issues = outcome.valid
    ? []
    : outcome.issues.filter(
        (issue) => !deferred.some((d) => issue.path === d.pointer || issue.path.startsWith(`${d.pointer}/`)),
      );
  if (issues.length > 0) {
    planned.check = 'invalid';
    planned.issues = issues;
  } else {
    planned.check = deferred.length > 0 ? 'partial' : 'valid';
  }
  return planned;
}

function validateKnown(tool: Tool, args: unknown, validator: SchemaValidator) {
  try {
    return validator.validate(tool.inputSchema, args);
  } catch (error) {
    // An unusable schema is the tool's problem; report it rather than fail the plan.
    const message = error instanceof GatewayError ? error.message : String(error);
    return { valid: false as const, issues: [{ path: '/', message }] };
  }
}
