import type { JsonSchema } from '../../foundation/model/tool.js';

/** One step of a skill, as written in the config. */
export interface SkillStepDefinition {
  /** Unique within the skill; later steps and `output` reference it as `steps.<id>.result`. */
  id: string;
  /** The id of the tool to run, e.g. `time:now`. */
  tool: string;
  /** The tool's arguments; strings may hold `${{ … }}` expressions. A string: one expression giving the whole object. */
  args?: Record<string, unknown> | string | undefined;
  /** An expression; when it is falsy the step is skipped (its result is `null`). */
  when?: string | boolean | undefined;
  description?: string | undefined;
}

/** The run limits of one skill. */
export interface SkillLimits {
  /** Wall-clock limit of one run, all steps together; over it the run fails with `timeout`. */
  timeoutMs: number;
  /** Most tool calls one run may make; over it the run fails with `sandbox_violation`. */
  maxToolCalls: number;
}

/** A declared multi-step workflow (config `skills[]`), also served as the tool `skill:<name>`. */
export interface SkillDefinition {
  /** A tool name: no whitespace or `:`. */
  name: string;
  title?: string | undefined;
  description: string;
  tags?: readonly string[] | undefined;
  /** JSON Schema of the inputs (an object schema); the skill tool's inputSchema. */
  input?: JsonSchema | undefined;
  steps: readonly SkillStepDefinition[];
  /** The result, with expressions; without it the result is the last executed step's result. */
  output?: unknown;
  limits?: Partial<SkillLimits> | undefined;
}

/**
 * Skill limits: the defaults a skill gets when its config does not say, and the ceilings its config
 * may not pass. `maxSteps` is checked when the config is loaded.
 */
export const SKILL_LIMITS = {
  /** Most steps one skill may declare. */
  maxSteps: 50,
  defaultTimeoutMs: 60_000,
  maxTimeoutMs: 600_000,
  defaultMaxToolCalls: 50,
  maxToolCalls: 1_000,
} as const;

/** The namespace of skill tools: skill `report` is the tool `skill:report`. */
export const SKILL_NAMESPACE = 'skill';

/** The input schema of a skill that declares none: no inputs. */
export const NO_INPUT: JsonSchema = Object.freeze({
  type: 'object',
  properties: {},
  additionalProperties: false,
});
