import { z } from 'zod';
import { decodeCursor, encodeCursor, listingKey } from '../../catalog/cursor.js';
import type { CompiledSkill } from '../../composition/skills/compile-skill.js';
import type { SkillCatalog } from '../../composition/skills/skill-catalog.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../composition/tool-scope.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { defineMetatool, type Metatool, type MetatoolContext, READ_ONLY, RUNS_TOOLS } from './metatool.js';

const name = z.string().min(1);
/** An inline skill definition (as in the config's `skills[]`; `name` and `description` optional). */
const skill = z.looseObject({}).optional();
const inputs = z
  .looseObject({})

  .optional();

/** The configured skill `name`, or the inline `skill`: exactly one of them. */
function chosenSkill(
  args: { name?: string | undefined; skill?: Record<string, unknown> | undefined },
  ctx: MetatoolContext,
): CompiledSkill {
  const skills = skillsOf(ctx);
  if ((args.name === undefined) === (args.skill === undefined)) {
    throw new GatewayError(
      'validation_input',
      'Give exactly one of `name` (a configured skill) or `skill` (an inline definition)',
      {
        details: { issues: [{ path: '/name', message: 'exactly one of name or skill' }] },
      },
    );
  }
  return args.skill === undefined ? skills.find(args.name as string, ctx.scope) : skills.inline(args.skill);
}

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
      'Skills: fixed multi-step workflows run with one call. describe_skill shows one, run_skill runs it.',
    input: z.strictObject({
      limit: z.int().min(1).max(MAX_PAGE_SIZE).describe(`Default ${DEFAULT_PAGE_SIZE}.`).optional(),
      cursor: z.string().optional(),
    }),
    annotations: READ_ONLY,
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
    description: "A skill's input schema, steps, output and hints.",
    input: z.strictObject({ name }),
    annotations: READ_ONLY,
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
      'Check a skill (by name, or an inline skill definition) without running it: are its tools available and do the known arguments match.',
    input: z.strictObject({ name: name.optional(), skill, inputs }),
    annotations: READ_ONLY,
    requires: 'skills',
    async handler(args, ctx) {
      return { ...skillsOf(ctx).plan(chosenSkill(args, ctx), ctx.scope, args.inputs) };
    },
  }),
  defineMetatool({
    name: 'run_skill',
    title: 'Run a skill',
    description:
      "Run a skill's steps in order with its inputs; a failure has error.code (chain_step_failed names the step).",
    input: z.strictObject({ name: name.optional(), skill, inputs }),
    annotations: RUNS_TOOLS,
    requires: 'skills',
    async handler(args, ctx) {
      const chosen = chosenSkill(args, ctx);
      if (args.skill !== undefined) {
        // An inline skill is no catalog tool: its steps each go through the pipeline in the caller's scope.
        return { passThrough: await skillsOf(ctx).runInline(chosen, ctx.scope, args.inputs, ctx.call) };
      }
      // Through the pipeline as the skill tool: authorization, middlewares and timeouts apply to the skill as a whole.
      return { passThrough: await ctx.scope.run(chosen.toolId, args.inputs ?? {}, ctx.call) };
    },
  }),
];
