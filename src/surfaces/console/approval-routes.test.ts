import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { setRequestCaller } from '../http/request-caller.js';
import type { PendingApproval } from './admin-contract.js';
import { approvalRoutes } from './approval-routes.js';

const ENTRY: PendingApproval = {
  id: 'h1',
  tool: 'repo:delete',
  caller: 'apikey:agent',
  surface: 'mcp',
  rule: 'ask',
  args: { repo: 'acme/site' },
  requestedAt: '2026-01-01T00:00:00.000Z',
  expiresAt: '2026-01-01T00:05:00.000Z',
};

function app(caller: { identity: string; admin?: boolean; authMethod?: 'api_key' }) {
  const answers: string[] = [];
  const outer = new Hono();
  outer.use('*', async (c, next) => {
    setRequestCaller(c, caller);
    await next();
  });
  outer.route(
    '/',
    approvalRoutes({
      authEnabled: true,
      approvals: {
        pending: () => [ENTRY],
        answer: (id, decision, by) => {
          if (id !== 'h1') throw new GatewayError('not_found', `No call waits for approval with id "${id}"`);
          answers.push(`${decision} by ${by}`);
          return ENTRY;
        },
        settings: () => ({ via: 'auto', timeoutMs: 300_000 }),
      },
    }),
  );
  return { outer, answers };
}

describe('approvalRoutes', () => {
  it('lists the held calls and answers one as the admin who asked', async () => {
    const { outer, answers } = app({ identity: 'root', admin: true, authMethod: 'api_key' });
    expect(await (await outer.request('/api/admin/approvals')).json()).toEqual({
      approvals: [ENTRY],
      via: 'auto',
      timeoutMs: 300_000,
    });
    const approved = await outer.request('/api/admin/approvals/h1/approve', { method: 'POST' });
    expect(await approved.json()).toEqual({ id: 'h1', outcome: 'approved', tool: 'repo:delete' });
    const denied = await outer.request('/api/admin/approvals/h1/deny', { method: 'POST' });
    expect(await denied.json()).toEqual({ id: 'h1', outcome: 'denied', tool: 'repo:delete' });
    expect(answers).toEqual(['approve by apikey:root', 'deny by apikey:root']);
    const unknown = await outer.request('/api/admin/approvals/nope/approve', { method: 'POST' });
    expect(unknown.status).toBe(404);
  });

  it('refuses a caller who is not an admin, and answers nothing for it', async () => {
    const { outer, answers } = app({ identity: 'agent', authMethod: 'api_key' });
    expect((await outer.request('/api/admin/approvals')).status).toBe(403);
    expect((await outer.request('/api/admin/approvals/h1/approve', { method: 'POST' })).status).toBe(403);
    expect(answers).toEqual([]);
  });
});
