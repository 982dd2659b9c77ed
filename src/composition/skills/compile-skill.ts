import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { JsonSchema } from '../../foundation/model/tool.js';
import { isValidToolName, parseToolId } from '../../foundation/model/tool-id.js';
import type { SchemaValidator } from '../../foundation/schema/schema-validator.js';
import {
  NO_INPUT,
  SKILL_LIMITS,
  SKILL_NAMESPACE,
  type SkillDefinition,
  type SkillLimits,
  type SkillStepDefinition,
} from './skill-definition.js';
import { type Expression, formatReference, IDENTIFIER, type Reference } from './skill-expression.js';
import { compileTemplate, type Template, TemplateError, templateExpressions } from './skill-template.js';

/** A problem in a skill's definition, at a key path relative to the skill (`['steps', 1, 'tool']`). */
export interface SkillIssue {
  path: (string | number)[];
  message: string;
}

/** A step ready to run: its templates parsed, its dependencies known. */
export interface CompiledStep {
  readonly id: string;
  readonly index: number;
  readonly tool: string;
  readonly description: string | undefined;
  readonly args: Template;
  /** Absent: the step always runs. */
  readonly when: Expression | undefined;
  /** Ids of the earlier steps whose results this step uses (in its args or `when`), in step order. */
  readonly dependsOn: readonly string[];
  readonly definition: SkillStepDefinition;
}

/** A skill checked and parsed once at load time; runs and plans only read it. */
export interface CompiledSkill {
  readonly name: string;
  /** `skill:<name>`. */
  readonly toolId: string;
  readonly title: string | undefined;
  readonly description: string;
  readonly tags: readonly string[];
  readonly input: JsonSchema;
  readonly steps: readonly CompiledStep[];
  readonly output: Template | undefined;
  readonly limits: SkillLimits;
  readonly definition: SkillDefinition;
}

const MAX_STEP_ID_LENGTH = 64;

/**
 * Checks a skill definition and lists every problem found: the name, the step count, unique and
 * well-formed step ids, tool ids, expression syntax, and references — `steps.<id>` must name an
 * earlier step (the output may name any step), `inputs.<name>` an input declared in
 * `input.properties`. With a validator, the input schema is also compiled.
 */
export function skillIssues(definition: SkillDefinition, validator?: SchemaValidator): SkillIssue[] {
  return analyse(definition, validator).issues;
}

/**
 * Compiles a skill definition.
 *
 * @throws GatewayError `config_invalid` listing the problems `skillIssues` finds
 */
export function compileSkill(definition: SkillDefinition, validator?: SchemaValidator): CompiledSkill {
  const { issues, skill } = analyse(definition, validator);
  if (issues.length > 0 || !skill) {
    const list = issues.map((issue) => `${formatIssuePath(issue.path)}: ${issue.message}`).join('; ');
    throw new GatewayError('config_invalid', `Skill "${definition.name}": ${list}`, {
      details: { skill: definition.name, issues },
    });
  }
  return skill;
}

function analyse(
  definition: SkillDefinition,
  validator: SchemaValidator | undefined,
): { issues: SkillIssue[]; skill?: CompiledSkill } {
  const issues: SkillIssue[] = [];
  const issue = (path: (string | number)[], message: string) => issues.push({ path, message });

  if (typeof definition.name !== 'string' || !isValidToolName(definition.name)) {
    issue(['name'], 'must be a tool name (no whitespace or ":")');
  }
  const input = definition.input ?? NO_INPUT;
  const declared = checkInput(input, validator, issue);
  const steps = Array.isArray(definition.steps) ? definition.steps : [];
  if (steps.length === 0) issue(['steps'], 'a skill needs at least one step');
  if (steps.length > SKILL_LIMITS.maxSteps) {
    issue(['steps'], `a skill may have at most ${SKILL_LIMITS.maxSteps} steps (got ${steps.length})`);
  }

  const firstIndex = new Map<string, number>();
  steps.forEach((step, index) => {
    if (typeof step.id !== 'string' || !IDENTIFIER.test(step.id) || step.id.length > MAX_STEP_ID_LENGTH) {
      issue(
        ['steps', index, 'id'],
        `must be letters, digits, "_" or "-", not starting with a digit or "-", at most ${MAX_STEP_ID_LENGTH} characters`,
      );
    } else if (firstIndex.has(step.id)) {
      issue(
        ['steps', index, 'id'],
        `duplicate step id "${step.id}" (also steps[${firstIndex.get(step.id)}])`,
      );
    } else {
      firstIndex.set(step.id, index);
    }
  });

  const compiled: CompiledStep[] = [];
  steps.forEach((step, index) => {
    const at = ['steps', index] as (string | number)[];
    checkTool(step.tool, [...at, 'tool'], issue);
    const args = compileArgs(step.args, [...at, 'args'], issue);
    const when = compileWhen(step.when, [...at, 'when'], issue);
    const used: { pointer: string; expression: Expression; path: (string | number)[] }[] = [];
    if (args) for (const e of templateExpressions(args)) used.push({ ...e, path: [...at, 'args'] });
    if (when) used.push({ pointer: '', expression: when, path: [...at, 'when'] });
    const dependsOn = new Set<string>();
    for (const { pointer, expression, path } of used) {
      for (const ref of expression.references) {
        const problem = referenceProblem(ref, declared, firstIndex, index);
        if (problem) issue([...path, ...pointerPath(pointer)], problem);
        else if (ref.root === 'steps') dependsOn.add(ref.step);
      }
    }
    compiled.push({
      id: step.id,
      index,
      tool: step.tool,
      description: step.description,
      args: args ?? { kind: 'literal', value: {} },
      when,
      dependsOn: [...dependsOn].sort((a, b) => (firstIndex.get(a) ?? 0) - (firstIndex.get(b) ?? 0)),
      definition: step,
    });
  });

  let output: Template | undefined;
  if (definition.output !== undefined) {
    output = compileAt(definition.output, ['output'], issue);
    for (const { pointer, expression } of output ? templateExpressions(output) : []) {
      for (const ref of expression.references) {
        const problem = referenceProblem(ref, declared, firstIndex, steps.length);
        if (problem) issue(['output', ...pointerPath(pointer)], problem);
      }
    }
  }

  const limits = {
    timeoutMs: definition.limits?.timeoutMs ?? SKILL_LIMITS.defaultTimeoutMs,
    maxToolCalls: definition.limits?.maxToolCalls ?? SKILL_LIMITS.defaultMaxToolCalls,
  };
  checkLimit(limits.timeoutMs, SKILL_LIMITS.maxTimeoutMs, ['limits', 'timeoutMs'], issue);
  checkLimit(limits.maxToolCalls, SKILL_LIMITS.maxToolCalls, ['limits', 'maxToolCalls'], issue);

  if (issues.length > 0) return { issues };
  return {
    issues,
    skill: {
      name: definition.name,
      toolId: `${SKILL_NAMESPACE}:${definition.name}`,
      title: definition.title,
      description: definition.description,
      tags: [...(definition.tags ?? [])],
      input,
      steps: compiled,
      output,
      limits,
      definition,
    },
  };
}

type Report = (path: (string | number)[], message: string) => void;

/** Checks the input schema; returns the declared input names. */
function checkInput(input: JsonSchema, validator: SchemaValidator | undefined, issue: Report): Set<string> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    issue(['input'], 'must be a JSON Schema object');
    return new Set();
  }
  if (input.type !== 'object') issue(['input', 'type'], 'must be "object" (a skill takes named inputs)');
  if (validator) {
    try {
      validator.compile(input);
    } catch (error) {
      issue(['input'], (error as Error).message);
    }
  }
  const properties = input.properties;
  return new Set(
    typeof properties === 'object' && properties !== null && !Array.isArray(properties)
      ? Object.keys(properties)
      : [],
  );
}

function checkTool(tool: unknown, path: (string | number)[], issue: Report): void {
  if (typeof tool !== 'string') {
    issue(path, 'must be a tool id such as "time:now"');
    return;
  }
  try {
    const { namespace } = parseToolId(tool);
    // Skills calling skills would need cycle checks and limits across nested runs; not supported.
    if (namespace === SKILL_NAMESPACE)
      issue(path, `a step cannot run another skill ("${tool}"); copy its steps`);
  } catch {
    issue(path, `"${tool}" is not a tool id; ids look like "namespace:name"`);
  }
}

function compileArgs(args: unknown, path: (string | number)[], issue: Report): Template | undefined {
  if (args === undefined) return { kind: 'literal', value: {} };
  if (typeof args === 'string') {
    const template = compileAt(args, path, issue);
    if (template && template.kind !== 'expression') {
      issue(
        path,
        `must be an object, or a string that is exactly one \${{ … }} expression giving the object`,
      );
      return undefined;
    }
    return template;
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    issue(path, 'must be an object of arguments');
    return undefined;
  }
  return compileAt(args, path, issue);
}

/** `when`: a boolean, one `${{ … }}` expression, or a bare expression (`inputs.verbose`). */
function compileWhen(when: unknown, path: (string | number)[], issue: Report): Expression | undefined {
  if (when === undefined) return undefined;
  if (typeof when === 'boolean') {
    return { source: String(when), node: { kind: 'literal', value: when }, references: [] };
  }
  if (typeof when !== 'string') {
    issue(path, 'must be an expression or a boolean');
    return undefined;
  }
  const template = compileAt(when.includes('${{') ? when : `\${{ ${when} }}`, path, issue);
  if (template && template.kind !== 'expression') {
    issue(path, 'must be exactly one expression');
    return undefined;
  }
  return template?.kind === 'expression' ? template.expression : undefined;
}

function compileAt(value: unknown, path: (string | number)[], issue: Report): Template | undefined {
  try {
    return compileTemplate(value);
  } catch (error) {
    if (!(error instanceof TemplateError)) throw error;
    issue([...path, ...pointerPath(error.pointer)], error.message);
    return undefined;
  }
}

/** Why a reference cannot be used at step `index` (the output counts as after the last step). */
function referenceProblem(
  ref: Reference,
  declared: ReadonlySet<string>,
  steps: ReadonlyMap<string, number>,
  index: number,
): string | undefined {
  const text = formatReference(ref);
  if (ref.root === 'inputs') {
    const name = ref.path[0];
    if (name === undefined || declared.has(String(name))) return undefined;
    return `${text}: input "${name}" is not declared in input.properties`;
  }
  const at = steps.get(ref.step);
  if (at === undefined) return `${text}: there is no step "${ref.step}"`;
  if (at >= index) {
    return at === index
      ? `${text}: a step cannot use its own result`
      : `${text}: step "${ref.step}" runs later (steps run in the order written)`;
  }
  return undefined;
}

function checkLimit(value: unknown, max: number, path: (string | number)[], issue: Report): void {
  if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > max) {
    issue(path, `must be an integer from 1 to ${max}`);
  }
}

/** A JSON Pointer as key path segments (array indices as numbers). */
function pointerPath(pointer: string): (string | number)[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment) => (/^(0|[1-9]\d*)$/.test(segment) ? Number(segment) : segment));
}

function formatIssuePath(path: readonly (string | number)[]): string {
  return path
    .map((segment, i) => (typeof segment === 'number' ? `[${segment}]` : i === 0 ? segment : `.${segment}`))
    .join('');
}
