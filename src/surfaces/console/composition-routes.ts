import type { Hono } from 'hono';
import type { SkillCatalog } from '../../composition/skills/skill-catalog.js';
import type { ToolsetRegistry } from '../../composition/toolsets/toolset-registry.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { SurfaceContext } from '../surface-context.js';
import { adminRouter } from './admin-router.js';

/** What the console's Toolsets & skills page reads. */
export interface CompositionParts {
  toolsets: ToolsetRegistry;
  /** Absent when no skills are configured. */
  skills?: SkillCatalog | undefined;
}

/** Members listed per toolset (the toolset's tool count says when there are more). */
const MEMBERS_SHOWN = 100;

/**
 * Toolsets and skills as the caller sees them (`/api/admin/toolsets`, `/api/admin/skills`, and a
 * skill's plan): the same views `list_toolsets`, `describe_toolset`, `list_skills`,
 * `describe_skill` and `plan_skill` give over MCP, so a confined key sees only its own. Nothing
 * here needs an admin: each caller reads its own scope.
 */
export function compositionRoutes(context: SurfaceContext, parts: CompositionParts): Hono {
  const { app, serve } = adminRouter({ authEnabled: false, maxBodyBytes: context.maxBodyBytes });

  serve({
    adminToolsets: ({ caller }) => {
      const view = parts.toolsets.viewFor(caller);
      const toolsets = view.list().map((summary) => ({
        ...summary,
        members: view.describe(summary.name, { limit: MEMBERS_SHOWN }).tools.map((tool) => tool.id),
      }));
      return { toolsets };
    },

    adminSkills: ({ caller }) => {
      const skills = parts.skills;
      if (!skills) return { skills: [] };
      const scope = context.resolveScope({ caller });
      return { skills: skills.visibleIn(scope).map((skill) => skills.describe(skill)) };
    },

    adminPlanSkill: async ({ caller, params, body }) => {
      const scope = context.resolveScope({ caller });
      const { inputs } = await body();
      const skills = parts.skills;
      if (!skills) {
        throw new GatewayError('tool_not_found', `No skill "${params.name}"; no skills are configured`);
      }
      const skill = skills.find(params.name, scope);
      return skills.plan(skill, scope, inputs ?? {});
    },
  });
  return app;
}
