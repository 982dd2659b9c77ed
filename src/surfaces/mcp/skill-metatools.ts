import { z } from 'zod';
import { decodeCursor, encodeCursor, listingKey } from '../../catalog/cursor.js';
import type { SkillCatalog } from '../../composition/skills/skill-catalog.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../composition/tool-scope.js';
import { GatewayError } from '../../foundation/gateway-error.js';
import { defineMetatool, type Metatool, type MetatoolContext } from './metatool.js';

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
// run_skill can run any skill, so it inherits the worst case (each skill's own hints are on its tool).
const RUNS_TOOLS = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };

const name = z
  .string()
  .min(1)
  .describe('The skill name, as list_skills returns it (the skill is also the tool "skill:<name>").');
const inputs = z
  .looseObject({})
  .describe("The skill's inputs, matching its input schema (see describe_skill).")
  .optional();

function skillsOf(ctx: MetatoolContext): SkillCatalog {
  // Served only with skills (`requires`), so this is a wiring fault, never the caller's.
  if (!ctx.skills) throw new GatewayError('internal', 'Skills are not available in this session');
  return ctx.skills;
}

/**
 * `list_skills`, `describe_skill`, `plan_skill` and `run_skill` (docs/DESIGN.md §4): the declared
 * multi-step workflows this caller can see. A skill is visible when its tool `skill:<name>` is in
 * the caller's scope, and runs through the pipeline as that tool, so its steps run in the caller's
 * scope too.
 */
export const SKILL_METATOOLS: readonly Metatool[] = [
  defineMetatool({
    name: 'list_skills',
    title: 'List skills',
    description:
      'List the skills: declared multi-step workflows that run several tools in a fixed order with one call. ' +
      'Each has a name, a description, its number of steps and its hints (readOnlyHint…). ' +
      'Use describe_skill for its inputs and steps, run_skill to run it.',
    input: z.strictObject({
      limit: z
        .int()
        .min(1)
        .max(MAX_PAGE_SIZE)
        .describe(`How many skills to return (default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE}).`)
        .optional(),
      cursor: z.string().describe('nextCursor from the previous page.').optional(),
    }),
    annotations: { title: 'List skills', ...READ_ONLY },
    requires: 'skills',
    async handler({ limit = DEFAULT_PAGE_SIZE, cursor }, ctx) {
      const skills = skillsOf(ctx);
      const key = listingKey({ s: 'skills', scope: ctx.scope.name ?? null });
      const offset = cursor ? decodeCursor(cursor, ctx.scope.version, key) : 0;
      const visible = skills.visibleIn(ctx.scope);
      const page: Record<string, unknown> = {
        skills: visible.slice(offset, offset + limit).map((skill) => ({
          name: skill.name,
          tool_id: skill.toolId,
          ...(skill.title === undefined ? {} : { title: skill.title }),
          description: skill.description,
          steps: skill.steps.length,
          annotations: skills.annotations(skill),
        })),
      };
      if (offset + limit < visible.length)
        page.nextCursor = encodeCursor(offset + limit, ctx.scope.version, key);
      return page;
    },
  }),
  defineMetatool({
    name: 'describe_skill',
    title: 'Describe a skill',
    description:
      'Show one skill: its input schema, its steps in the order they run (each with its tool, its arguments — ' +
      `\${{ inputs.x }} and \${{ steps.<id>.result.<path> }} are filled in at run time — and an optional "when" ` +
      'condition that skips it), its output mapping, hints and limits.',
    input: z.strictObject({ name }),
    annotations: { title: 'Describe a skill', ...READ_ONLY },
    requires: 'skills',
    async handler(args, ctx) {
      const skills = skillsOf(ctx);
      return { skill: skills.describe(skills.find(args.name, ctx.scope)) };
    },
  }),
  defineMetatool({
    name: 'plan_skill',
    title: 'Plan a skill',
    description:
      "Check a skill without running it: whether every step's tool is available to you, whether the arguments " +
      "known in advance (literal, or from the inputs you pass) match each tool's input schema, which arguments " +
      "wait for earlier steps' results, and which conditional steps would run. Returns { valid, steps, problems }.",
    input: z.strictObject({ name, inputs }),
    annotations: { title: 'Plan a skill', ...READ_ONLY },
    requires: 'skills',
    async handler(args, ctx) {
      const skills = skillsOf(ctx);
      return { ...skills.plan(skills.find(args.name, ctx.scope), ctx.scope, args.inputs) };
    },
  }),
  defineMetatool({
    name: 'run_skill',
    title: 'Run a skill',
    description:
      'Run a skill with its inputs: its steps run one after another, in order, each through the same checks as ' +
      "run_tool. Returns the skill's result. Progress is reported per step. On failure: chain_step_failed " +
      "(details: the failing step's id and index, the completed steps, the step's own error), validation_input " +
      'for bad inputs, tool_not_found naming a step whose tool is unavailable, timeout, or sandbox_violation when ' +
      "the skill's tool-call limit is reached.",
    input: z.strictObject({ name, inputs }),
    annotations: { title: 'Run a skill', ...RUNS_TOOLS },
    requires: 'skills',
    async handler(args, ctx) {
      const skill = skillsOf(ctx).find(args.name, ctx.scope);
      // Through the pipeline as the skill tool: authorization, middlewares and timeouts apply to the skill as a whole.
      return { passThrough: await ctx.scope.run(skill.toolId, args.inputs ?? {}, ctx.call) };
    },
  }),
];
