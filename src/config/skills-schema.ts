import { z } from 'zod';
import { skillDefinitionSchema } from '../composition/skills/skill-schema.js';

/*
 * The `skills` section of the config (docs/DESIGN.md §4: declared multi-step workflows, each also the
 * tool `skill:<name>`). The shape is checked here; what only the skill compiler can judge — step
 * ids, tool ids, expressions and what they reference, the input schema, the step limit — is
 * reported by `skillIssues` at the exact key, so `aperture config validate` catches it too.
 */

/** One skill as the config holds it (every default applied). */
export type SkillConfig = z.output<typeof skillDefinitionSchema>;

export const skillsSection = z
  .array(skillDefinitionSchema)
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
  })
  .describe('`skills: [...]`: skill names must be unique.');
