import { type Context, Hono } from 'hono';
import type { SkillCatalog } from '../../composition/skills/skill-catalog.js';
import type { ToolsetRegistry } from '../../composition/toolsets/toolset-registry.js';
import { GatewayError } from '../../foundation/gateway-error.js';
import type { CallerContext } from '../../foundation/tool-backend.js';
import { readJsonBody } from '../http/read-json-body.js';
import { requestCaller } from '../http/request-caller.js';
import { restError } from '../rest/rest-errors.js';
import type { SurfaceContext } from '../surface-context.js';

/** What the console's Toolsets & skills page reads. */
export interface CompositionParts {
  toolsets: ToolsetRegistry;
  /** Absent when no skills are configured. */
  skills?: SkillCatalog | undefined;
}

const ANONYMOUS: CallerContext = { identity: 'anonymous' };
/** Members listed per toolset (the toolset's tool count says when there are more). */
const MEMBERS_SHOWN = 100;

/**
 * Toolsets and skills as the caller sees them (`/api/admin/toolsets`, `/api/admin/skills`, and a
 * skill's plan): the same views `list_toolsets`, `describe_toolset`, `list_skills`,
 * `describe_skill` and `plan_skill` give over MCP, so a confined key sees only its own.
 */
export function compositionRoutes(context: SurfaceContext, parts: CompositionParts): Hono {
  const app = new Hono();
  const caller = (c: Context): CallerContext => requestCaller(c) ?? ANONYMOUS;

  app.get('/api/admin/toolsets', (c) => {
    try {
      const view = parts.toolsets.viewFor(caller(c));
      const toolsets = view.list().map((summary) => ({
        ...summary,
        members: view.describe(summary.name, { limit: MEMBERS_SHOWN }).tools.map((tool) => tool.id),
      }));
      return c.json({ toolsets });
    } catch (error) {
      return restError(c, error);
    }
  });

  app.get('/api/admin/skills', (c) => {
    try {
      const skills = parts.skills;
      if (!skills) return c.json({ skills: [] });
      const scope = context.resolveScope({ caller: caller(c) });
      return c.json({ skills: skills.visibleIn(scope).map((skill) => skills.describe(skill)) });
    } catch (error) {
      return restError(c, error);
    }
  });

  app.post('/api/admin/skills/:name/plan', async (c) => {
    try {
      const scope = context.resolveScope({ caller: caller(c) });
      const body = await readJsonBody(c, context.maxBodyBytes);
      const inputs =
        typeof body === 'object' && body !== null ? (body as { inputs?: unknown }).inputs : undefined;
      const skills = parts.skills;
      if (!skills) {
        throw new GatewayError(
          'tool_not_found',
          `No skill "${c.req.param('name')}"; no skills are configured`,
        );
      }
      const skill = skills.find(c.req.param('name'), scope);
      return c.json(skills.plan(skill, scope, inputs ?? {}));
    } catch (error) {
      return restError(c, error);
    }
  });
  return app;
}
