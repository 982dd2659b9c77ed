import type { Hono } from 'hono';
import { callerKey } from '../../foundation/ports/tool-backend.js';
import type { PendingApproval } from './admin-contract.js';
import { adminRouter } from './admin-router.js';

/** What the routes need of the gateway's approval desk. */
export interface ApprovalsAdmin {
  /** The calls waiting for an admin (on every replica when they share a board), oldest first. */
  pending(): PendingApproval[] | Promise<PendingApproval[]>;
  /** Answers the held call `id`; throws `not_found` when none waits under it. */
  answer(id: string, decision: 'approve' | 'deny', by: string): PendingApproval | Promise<PendingApproval>;
  /** `approvals.via` and `approvals.timeoutMs` now. */
  settings(): { via: 'auto' | 'admin'; timeoutMs: number };
}

/** Options of {@link approvalRoutes}. */
export interface ApprovalRoutesOptions {
  approvals: ApprovalsAdmin;
  /** True when auth is configured: then only an admin identity may list and answer. */
  authEnabled: boolean;
}

/**
 * The management API of approvals, served from its contract: `GET /api/admin/approvals` lists the
 * calls held on this gateway, `POST /api/admin/approvals/{id}/approve|deny` answers one (its
 * caller gets the result, or `approval_denied`); an id no call waits under is 404 `not_found`.
 * With auth on, an admin identity only: an answer decides what a caller may do.
 */
export function approvalRoutes(options: ApprovalRoutesOptions): Hono {
  const { approvals } = options;
  // The routes read no body.
  const { app, serve } = adminRouter({ authEnabled: options.authEnabled, maxBodyBytes: 0 });
  const answer = async (id: string, decision: 'approve' | 'deny', by: string) => {
    const entry = await approvals.answer(id, decision, by);
    return {
      id: entry.id,
      outcome: decision === 'approve' ? ('approved' as const) : ('denied' as const),
      tool: entry.tool,
    };
  };
  serve({
    adminApprovals: async () => ({ approvals: await approvals.pending(), ...approvals.settings() }),
    adminApprove: ({ caller, params }) => answer(params.id, 'approve', callerKey(caller)),
    adminDeny: ({ caller, params }) => answer(params.id, 'deny', callerKey(caller)),
  });
  return app;
}
