import type { Hono } from 'hono';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { TrustApproval, TrustState } from './admin-contract.js';
import { adminRouter } from './admin-router.js';

/** What the routes need of the gateway's trust on first use. */
export interface TrustAdmin {
  /** What `/readyz` shows too: the mode, quarantined and warned tools. */
  readiness(): unknown;
  /** Approves the pending versions of `ids`; per id `approved`, `nothing_pending` or `unknown`. */
  approve(ids: readonly string[]): Record<string, string>;
}

/** Options of {@link trustRoutes}. */
export interface TrustRoutesOptions {
  trust: TrustAdmin;
  /** True when auth is configured: then only an admin identity may use the routes. */
  authEnabled: boolean;
  maxBodyBytes: number;
}

/**
 * The management API of trust, served from its contract (`adminTrust`, `adminTrustApprove`):
 * `GET /api/admin/trust` lists tools changed or flagged during this run, `POST
 * /api/admin/trust/approve` with `{ "ids": [...] }` approves their pending versions (a quarantined
 * tool is back at once). With auth configured both need an admin identity — they span every
 * toolset, and approving changes what every agent is served.
 */
export function trustRoutes(options: TrustRoutesOptions): Hono {
  const { app, serve } = adminRouter({
    authEnabled: options.authEnabled,
    maxBodyBytes: options.maxBodyBytes,
  });
  serve({
    // `TrustAdmin` is typed loosely so the gateway's trust parts (above this layer) fit it; what
    // they give is the contract's shape.
    adminTrust: () => options.trust.readiness() as TrustState,

    adminTrustApprove: async ({ body }) => {
      const { ids } = await body();
      const outcomes = options.trust.approve(ids) as TrustApproval['outcomes'];
      const unknown = Object.entries(outcomes).filter(([, outcome]) => outcome === 'unknown');
      // Not one id names a tool seen: a failure of the request, not a list of outcomes.
      if (unknown.length === ids.length) {
        throw new GatewayError(
          'not_found',
          `No tool seen with id ${unknown.map(([id]) => `"${id}"`).join(', ')}`,
          { details: { outcomes } },
        );
      }
      return { outcomes };
    },
  });
  return app;
}
