import { z } from 'zod';
import { decodeCursor, encodeCursor, listingKey } from '../../catalog/cursor.js';
import type { SkillCatalog } from '../../composition/skills/skill-catalog.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../composition/tool-scope.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { defineMetatool, type Metatool, type MetatoolContext, READ_ONLY, RUNS_TOOLS } from './metatool.js';

const name = z.string().min(1);
const inputs = z
  .looseObject({})

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
      'Check a skill without running it: are its tools available and do the known arguments match their schemas.',
    input: z.strictObject({ name, inputs }),
    annotations: READ_ONLY,
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
      "Run a skill's steps in order with its inputs; a failure has error.code (chain_step_failed names the step).",
    input: z.strictObject({ name, inputs }),
    annotations: RUNS_TOOLS,
    requires: 'skills',
    async handler(args, ctx) {
      const skill = skillsOf(ctx).find(args.name, ctx.scope);
      // Through the pipeline as the skill tool: authorization, middlewares and timeouts apply to the skill as a whole.
      return { passThrough: await ctx.scope.run(skill.toolId, args.inputs ?? {}, ctx.call) };
    },
  }),
];
