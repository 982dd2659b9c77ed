import { ApprovalDesk } from '../../operations/approvals/approval-desk.js';
import { RedisApprovalBoard } from '../../operations/approvals/redis-approval-board.js';
import type { FeatureFactory } from './feature.js';

declare module './feature.js' {
  interface PartTypes {
    /** Where calls held by a policy rule (`effect: approve`) are answered: the `ApprovalGate`. */
    approvalGate: ApprovalDesk;
  }
}

/**
 * Approvals (docs/APPROVALS-AND-AUDIT.md): the desk where held calls are asked — the calling
 * client's elicitation, or the admins' queue (`/api/admin/approvals`, the console, `aperture
 * approvals`). `approvals.via` and `approvals.timeoutMs` are read at each held call, so a reload
 * applies to the next one. At shutdown the waiting calls answer `cancelled`.
 */
export const approvals: FeatureFactory = (_config, parts) => {
  const { log, maskSecrets } = parts.gateway;
  const shared = parts.need('shared');
  const desk = parts.provide(
    'approvalGate',
    new ApprovalDesk({
      via: () => parts.config().approvals.via,
      timeoutMs: () => parts.config().approvals.timeoutMs,
      audit: parts.need('auditTrail'),
      mask: (text) => maskSecrets(text),
      log: log.child({ component: 'approvals' }),
      // With replicas, every replica lists every held call and answers it wherever it is held.
      ...(shared
        ? { board: new RedisApprovalBoard(shared.connection, log.child({ component: 'approvals' })) }
        : {}),
    }),
  );
  const trail = parts.need('auditTrail');
  return {
    name: 'approvals',
    // The policies feature is listed after this one: its enforcement is reached once every feature is made.
    start: async () => {
      const enforcement = parts.need('policyEnforcement');
      enforcement.gate = desk;
      enforcement.trail = trail;
      await desk.start();
    },
    reload: { approvals: () => undefined },
    http: {
      // Before the console's: its /api/admin routes end with a catch-all 404.
      routes: async ({ authEnabled }) => {
        const { approvalRoutes } = await import('../../surfaces/console/approval-routes.js');
        const settings = () => {
          const { via, timeoutMs } = parts.config().approvals;
          return { via, timeoutMs };
        };
        return [
          approvalRoutes({
            approvals: {
              pending: () => desk.list(),
              answer: (id, d, by) => desk.answerAnywhere(id, d, by),
              settings,
            },
            authEnabled,
          }),
        ];
      },
    },
    close: () => desk.close(),
  };
};
