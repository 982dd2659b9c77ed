import { z } from 'zod';
import { int, nonEmptyString } from '../../foundation/schema/config-values.js';
import { SchemaValidator } from '../../foundation/schema/schema-validator.js';
import { isRecord } from '../../foundation/util/is-record.js';
import { skillIssues } from './compile-skill.js';
import { SKILL_LIMITS } from './skill-definition.js';

const stepSchema = z.strictObject({
  id: z.string(),
  tool: z.string(),
  description: z.string().optional(),
  args: z
    .custom<Record<string, unknown> | string>((value) => isRecord(value) || typeof value === 'string', {
      error: `must be an object of arguments, or one \${{ … }} expression giving the object`,
    })
    .optional(),
  when: z
    .custom<string | boolean>((value) => typeof value === 'string' || typeof value === 'boolean', {
      error: `must be an expression such as "\${{ inputs.verbose }}", or a boolean`,
    })
    .optional(),
});

let sharedValidator: SchemaValidator | undefined;

/**
 * One skill definition's shape, every default applied, and what only the skill compiler can judge
 * (`skillIssues`) reported at the exact key: the config's `skills[]` and an inline skill given to
 * `run_skill` / `plan_skill` are validated alike.
 */
export const skillDefinitionSchema = z
  .strictObject({
    name: z.string(),
    title: z.string().optional(),
    description: nonEmptyString(),
    tags: z.array(z.string()).default([]),
    /** JSON Schema of the inputs; default: no inputs. */
    input: z.record(z.string(), z.unknown()).optional(),
    // At least one, at most SKILL_LIMITS.maxSteps: checked by `skillIssues` below.
    steps: z.array(stepSchema),
    output: z.unknown().optional(),
    limits: z
      .strictObject({
        timeoutMs: int(1, SKILL_LIMITS.maxTimeoutMs).default(SKILL_LIMITS.defaultTimeoutMs),
        maxToolCalls: int(1, SKILL_LIMITS.maxToolCalls).default(SKILL_LIMITS.defaultMaxToolCalls),
      })
      .prefault({}),
  })
  .superRefine((skill, ctx) => {
    // One validator for every config load: compiling the input schemas is the only use.
    sharedValidator ??= new SchemaValidator();
    // The limits are checked above; zod runs this even when they failed, which would report them twice.
    for (const issue of skillIssues({ ...skill, limits: undefined }, sharedValidator)) {
      ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    }
  });
