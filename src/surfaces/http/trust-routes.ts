import { type Context, Hono } from 'hono';
import { GatewayError, toGatewayError } from '../../foundation/gateway-error.js';
import { isRecord } from '../../foundation/is-record.js';
import { httpError } from './http-error.js';
import { readJsonBody } from './read-json-body.js';
import { requestCaller } from './request-caller.js';

/** Where the trust routes live: under the management API (docs/DESIGN.md §7). */
export const TRUST_ROUTE = '/api/admin/trust';

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
 * The management API of trust: `GET /api/admin/trust` lists tools changed or flagged during this
 * run, `POST /api/admin/trust/approve` with `{ "ids": [...] }` approves their pending versions (a
 * quarantined tool is back at once). With auth configured both need an admin identity — they
 * span every toolset, and approving changes what every agent is served.
 */
export function trustRoutes(options: TrustRoutesOptions): Hono {
  const app = new Hono();
  const admin = (c: Context): Response | undefined =>
    !options.authEnabled || requestCaller(c)?.admin === true
      ? undefined
      : httpError(
          c,
          new GatewayError(
            'forbidden',
            'Trust management needs an admin identity (auth.apiKeys[].admin: true)',
          ),
        );
  app.get(TRUST_ROUTE, (c) => admin(c) ?? c.json(options.trust.readiness()));
  app.post(`${TRUST_ROUTE}/approve`, async (c) => {
    const refused = admin(c);
    if (refused) return refused;
    let body: unknown;
    try {
      body = await readJsonBody(c, options.maxBodyBytes);
    } catch (error) {
      return httpError(c, toGatewayError(error));
    }
    const ids = isRecord(body) ? body.ids : undefined;
    if (
      !Array.isArray(ids) ||
      ids.length === 0 ||
      !ids.every((id) => typeof id === 'string' && id.length > 0)
    ) {
      return httpError(
        c,
        new GatewayError(
          'invalid_request',
          'The body must be {"ids": ["namespace:tool", ...]} with at least one id',
        ),
      );
    }
    const outcomes = options.trust.approve(ids as string[]);
    const unknown = Object.entries(outcomes).filter(([, outcome]) => outcome === 'unknown');
    if (unknown.length === ids.length) {
      return httpError(
        c,
        new GatewayError('not_found', `No tool seen with id ${unknown.map(([id]) => `"${id}"`).join(', ')}`, {
          details: { outcomes },
        }),
      );
    }
    return c.json({ outcomes });
  });
  return app;
}
