import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { MemoryAuditTrail } from '../../operations/audit/memory-audit-trail.js';
import { setRequestCaller } from '../http/request-caller.js';
import { adminReloadRoutes } from './admin-reload-route.js';
import { auditRoutes } from './audit-routes.js';
import { trustRoutes } from './trust-routes.js';

/** The audit routes mounted before trust's and reload's, as the feature list mounts them. */
function app(caller: { identity: string; admin?: boolean; authMethod?: 'api_key' }, authEnabled = true) {
  const trail = new MemoryAuditTrail();
  const outer = new Hono();
  outer.use('*', async (c, next) => {
    setRequestCaller(c, caller);
    await next();
  });
  outer.route(
    '/',
    auditRoutes({
      audit: Object.assign(trail, { settings: () => ({ calls: false, where: 'memory' }) }),
      authEnabled,
    }),
  );
  outer.route(
    '/',
    adminReloadRoutes({ reload: async () => ({ changed: ['auth'] }), authRequired: authEnabled }),
  );
  outer.route(
    '/',
    trustRoutes({
      authEnabled,
      maxBodyBytes: 1024,
      trust: {
        readiness: () => ({}),
        approve: (ids) => Object.fromEntries(ids.map((id) => [id, 'approved'])),
      },
    }),
  );
  const lines = () => trail.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  return { outer, trail, lines };
}

describe('auditRoutes', () => {
  it('records the admin actions of the routes after it, with who asked, the outcome and the redacted body', async () => {
    const { outer, lines } = app({ identity: 'root', admin: true, authMethod: 'api_key' });
    expect((await outer.request('/api/admin/reload', { method: 'POST' })).status).toBe(200);
    const approve = await outer.request('/api/admin/trust/approve', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ids: ['a:b'], password: 'hunter2' }),
    });
    expect(approve.status).toBe(200);
    expect(lines()).toMatchObject([
      { seq: 1, kind: 'admin.reload', actor: 'apikey:root', decision: 'ok' },
      {
        seq: 2,
        kind: 'admin.trust_approve',
        actor: 'apikey:root',
        decision: 'ok',
        details: { request: { ids: ['a:b'], password: '[REDACTED]' } },
      },
    ]);
    // Reading is not an action.
    await outer.request('/api/admin/trust');
    expect(lines()).toHaveLength(2);
  });

  it('records a refused action with its status', async () => {
    const { outer, lines } = app({ identity: 'agent', authMethod: 'api_key' });
    expect((await outer.request('/api/admin/reload', { method: 'POST' })).status).toBe(403);
    expect(lines()).toMatchObject([{ kind: 'admin.reload', actor: 'apikey:agent', decision: 'status 403' }]);
  });

  it('answers the last lines, bounded, to an admin only', async () => {
    const { outer, trail } = app({ identity: 'root', admin: true });
    for (let i = 0; i < 5; i++) await trail.record({ kind: 'call', actor: `a${i}` });
    const answer = (await (await outer.request('/api/admin/audit?limit=2')).json()) as {
      lines: { actor: string }[];
      where: string;
    };
    expect(answer.lines.map((line) => line.actor)).toEqual(['a3', 'a4']);
    expect(answer.where).toBe('memory');
    const fallback = (await (await outer.request('/api/admin/audit?limit=nonsense')).json()) as {
      lines: unknown[];
    };
    expect(fallback.lines).toHaveLength(5);
    expect((await app({ identity: 'agent' }).outer.request('/api/admin/audit')).status).toBe(403);
  });
});
