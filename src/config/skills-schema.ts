import { z } from 'zod';
import { skillIssues } from '../composition/skills/compile-skill.js';
import { SKILL_LIMITS } from '../composition/skills/skill-definition.js';
import { SchemaValidator } from '../foundation/schema/schema-validator.js';
import { isRecord } from '../foundation/util/is-record.js';
import { int, nonEmptyString } from './schema-primitives.js';

/*
 * The `skills` section of the config (docs/DESIGN.md §4: declared multi-step workflows, each also the
 * tool `skill:<name>`). The shape is checked here; what only the skill compiler can judge — step
 * ids, tool ids, expressions and what they reference, the input schema, the step limit — is
 * reported by `skillIssues` at the exact key, so `aperture config validate` catches it too.
 */

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

const skillSchema = z
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

/** One skill as the config holds it (every default applied). */
export type SkillConfig = z.output<typeof skillSchema>;

/** `skills: [...]`: skill names must be unique. */
export const skillsSection = z
  .array(skillSchema)
  .default([])
  .superRefine((skills, ctx) => {
    const seen = new Map<string, number>();
    skills.forEach((skill, index) => {
      const first = seen.get(skill.name);
      if (first === undefined) seen.set(skill.name, index);
      else {
        ctx.addIssue({
          code: 'custom',
          path: [index, 'name'],
          message: `duplicate skill name "${skill.name}" (also skills[${first}])`,
        });
      }
    });
  });
