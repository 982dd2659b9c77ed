import { describe, expect, it } from 'vitest';
import { surfaceContext } from '../../../test/support/surface-context.js';
import type { ToolScope } from '../../composition/tool-scope.js';
import type { ToolsetRegistry } from '../../composition/toolsets/toolset-registry.js';
import { ActivityFeed } from '../../operations/observe/activity-feed.js';
import { ADMIN_API } from './admin-contract.js';
import { adminPaths } from './admin-openapi.js';
import { adminReloadRoutes } from './admin-reload-route.js';
import { honoPath } from './admin-router.js';
import { adminRoutes } from './admin-routes.js';
import { approvalRoutes } from './approval-routes.js';
import { auditRoutes } from './audit-routes.js';
import { cacheRoutes } from './cache-routes.js';
import { compositionRoutes } from './composition-routes.js';
import { installRoutes } from './install-routes.js';
import { trustRoutes } from './trust-routes.js';

/** Every sub-app serving `/api/admin/…`, as the HTTP server mounts them. */
function adminApps() {
  const context = surfaceContext({} as ToolScope);
  return [
    compositionRoutes(context, { toolsets: {} as ToolsetRegistry }),
    adminReloadRoutes({ reload: async () => ({}), authRequired: false }),
    installRoutes({
      installer: { search: async () => ({ servers: [] }), install: async () => ({}) as never },
      authEnabled: false,
      maxBodyBytes: 1024,
    }),
    approvalRoutes({
      approvals: {
        pending: () => [],
        answer: () => ({}) as never,
        settings: () => ({ via: 'auto', timeoutMs: 1 }),
      },
      authEnabled: false,
    }),
    auditRoutes({
      audit: {
        recent: async () => [],
        record: async () => {},
        settings: () => ({ calls: false, where: 'memory' }),
      },
      authEnabled: false,
    }),
    cacheRoutes({
      cache: { current: () => undefined, shared: false },
      authEnabled: false,
      maxBodyBytes: 1024,
    }),
    trustRoutes({
      trust: { readiness: () => ({}), approve: () => ({}) },
      authEnabled: false,
      maxBodyBytes: 1024,
    }),
    adminRoutes(context, {
      authEnabled: false,
      sources: () => [],
      reconnect: async () => {},
      activity: new ActivityFeed(),
      config: () => ({}),
      checkConfig: () => ({ valid: true, warnings: [], notices: [] }),
      tokenCosts: async () => ({ flat: 0, metatools: 0, tools: 0, counter: 'estimate' }),
      executeCode: async () => ({ value: null, logs: [], toolCalls: [], durationMs: 0 }),
    }),
  ];
}

describe('adminPaths', () => {
  it('documents exactly the admin routes the Hono apps register, method by method', () => {
    const served = new Set<string>();
    for (const app of adminApps()) {
      for (const route of app.routes) {
        // The catch-alls (`/api/admin/*` 404, reload's 405 for other methods) are no operations.
        if (!route.path.startsWith('/api/admin/') || route.path.includes('*') || route.method === 'ALL')
          continue;
        served.add(`${route.method} ${route.path}`);
      }
    }
    const documented = new Set<string>();
    for (const [path, item] of Object.entries(adminPaths(() => ({})))) {
      for (const method of Object.keys(item as object))
        documented.add(`${method.toUpperCase()} ${honoPath(path)}`);
    }
    expect([...documented].sort()).toEqual([...served].sort());
    expect(documented.size).toBe(Object.keys(ADMIN_API).length);
  });

  it("gives every answer the contract's schema, not a bare object", () => {
    const paths = adminPaths(() => ({})) as Record<
      string,
      Record<
        string,
        { responses: Record<string, { content: Record<string, { schema: Record<string, unknown> }> }> }
      >
    >;
    const session = paths['/api/admin/session']?.get?.responses['200']?.content['application/json']?.schema;
    expect(session).toMatchObject({
      type: 'object',
      properties: { identity: { type: 'string' }, admin: { type: 'boolean' } },
      required: expect.arrayContaining(['identity', 'admin', 'authEnabled', 'codeMode', 'name', 'version']),
    });
    expect(session).not.toHaveProperty('$schema');
    for (const [path, item] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const content = operation.responses['200']?.content ?? {};
        const schema = content['application/json']?.schema ?? content['text/event-stream']?.schema;
        expect(schema, `${method} ${path}`).toBeDefined();
        if (content['application/json'])
          expect(Object.keys(schema ?? {}).some((key) => key === 'properties' || key === 'anyOf')).toBe(true);
      }
    }
  });

  it('passes the error responses it is given, with the body errors for operations that read one', () => {
    const paths = adminPaths((body) => ({ '400': { body } })) as Record<
      string,
      Record<string, { responses: Record<string, unknown>; requestBody?: unknown }>
    >;
    expect(paths['/api/admin/code']?.post?.responses['400']).toEqual({ body: true });
    expect(paths['/api/admin/code']?.post?.requestBody).toMatchObject({ required: true });
    expect(paths['/api/admin/session']?.get?.responses['400']).toEqual({ body: false });
  });
});
