import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { surfaceContext } from '../../../test/support/surface-context.js';
import type { ToolScope } from '../../composition/tool-scope.js';
import type { ToolsetRegistry } from '../../composition/toolsets/toolset-registry.js';
import { ADMIN_API } from './admin-contract.js';
import { compositionRoutes } from './composition-routes.js';

const toolsets = {
  viewFor: () => ({
    list: () => [{ name: 'time', toolCount: 1, endpoint: '/mcp/time' }],
    describe: () => ({ tools: [{ id: 'time:now' }] }),
  }),
} as unknown as ToolsetRegistry;

function app(): Hono {
  const outer = new Hono();
  outer.route('/', compositionRoutes(surfaceContext({} as ToolScope), { toolsets }));
  return outer;
}

describe('compositionRoutes', () => {
  it('lists the toolsets the caller may use with their members', async () => {
    const answer = await app().request('/api/admin/toolsets');
    const body: unknown = await answer.json();
    expect(body).toEqual({
      toolsets: [{ name: 'time', toolCount: 1, endpoint: '/mcp/time', members: ['time:now'] }],
    });
    // In the contract's shape: a parse drops no key.
    expect(ADMIN_API.adminToolsets.response.parse(body)).toEqual(body);
  });

  it('answers no skills when none are configured, and 404 tool_not_found for planning one', async () => {
    expect(await (await app().request('/api/admin/skills')).json()).toEqual({ skills: [] });
    const plan = await app().request('/api/admin/skills/nope/plan', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"inputs":{}}',
    });
    expect(plan.status).toBe(404);
    expect(((await plan.json()) as { error: { code: string } }).error.code).toBe('tool_not_found');
  });
});
