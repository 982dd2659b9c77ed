import { z } from 'zod';
import { int, nonEmptyString } from '../../foundation/schema/config-values.js';
import { SchemaValidator } from '../../foundation/schema/schema-validator.js';
import { isRecord } from '../../foundation/util/is-record.js';
import { skillIssues } from './compile-skill.js';
import { SKILL_LIMITS } from './skill-definition.js';

const stepSchema = z.strictObject({
  id: z
    .string()
    .describe("The step's id, unique in the skill: later steps read its result as `steps.<id>.result`."),
  tool: z.string().describe('The id of the tool the step runs (`namespace:name`); not another skill.'),
  description: z.string().optional().describe('What the step does, shown by `describe_skill`.'),
  args: z
    .custom<Record<string, unknown> | string>((value) => isRecord(value) || typeof value === 'string', {
      error: `must be an object of arguments, or one \${{ … }} expression giving the object`,
    })
    .optional()
    .describe(
      "The tool's arguments: an object whose strings may hold `inputs.<name>` and `steps.<id>.result` expressions, or one expression giving the object.",
    ),
  when: z
    .custom<string | boolean>((value) => typeof value === 'string' || typeof value === 'boolean', {
      error: `must be an expression such as "\${{ inputs.verbose }}", or a boolean`,
    })
    .optional()
    .describe('An expression or a boolean: falsy, the step is skipped (its result is `null`).'),
});

let sharedValidator: SchemaValidator | undefined;

/**
 * One skill definition's shape, every default applied, and what only the skill compiler can judge
 * (`skillIssues`) reported at the exact key: the config's `skills[]` and an inline skill given to
 * `run_skill` / `plan_skill` are validated alike.
 */
export const skillDefinitionSchema = z
  .strictObject({
    name: z.string().describe("The skill's name, unique: it is also the tool `skill:<name>`."),
    title: z.string().optional().describe("The skill's display title (the tool's `title`)."),
    description: nonEmptyString().describe(
      'What the skill does, for the agent (search and `describe_skill` read it).',
    ),
    tags: z
      .array(z.string())
      .default([])
      .describe("Tags of the skill's tool (besides `skill`), for search filters and toolsets."),
    input: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("JSON Schema of the inputs (the tool's `inputSchema`); absent: no inputs."),
    // At least one, at most SKILL_LIMITS.maxSteps: checked by `skillIssues` below.
    steps: z
      .array(stepSchema)
      .describe('The tools run one after another, in the order written (at least one, at most 50).'),
    output: z
      .unknown()
      .optional()
      .describe(
        "The skill's result, a value whose strings may hold expressions; absent: the last executed step's result.",
      ),
    limits: z
      .strictObject({
        timeoutMs: int(1, SKILL_LIMITS.maxTimeoutMs)
          .default(SKILL_LIMITS.defaultTimeoutMs)
          .describe('The whole run fails with `timeout` (naming the running step) after this long.'),
        maxToolCalls: int(1, SKILL_LIMITS.maxToolCalls)
          .default(SKILL_LIMITS.defaultMaxToolCalls)
          .describe('Tool calls of one run at most; past it the run fails with `sandbox_violation`.'),
      })
      .prefault({})
      .describe('Limits of one run of the skill.'),
  })
  .superRefine((skill, ctx) => {
    // One validator for every config load: compiling the input schemas is the only use.
    sharedValidator ??= new SchemaValidator();
    // The limits are checked above; zod runs this even when they failed, which would report them twice.
    for (const issue of skillIssues({ ...skill, limits: undefined }, sharedValidator)) {
      ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    }
  });
