import { Hono } from 'hono';
import { GatewayError } from '../../foundation/gateway-error.js';
import { requestCaller } from '../http/request-caller.js';
import { restError } from './rest-errors.js';

/** The route path: one constant, shared with the OpenAPI document's listing. */
export const ADMIN_RELOAD_PATH = '/api/admin/reload';

/** Options of `adminReloadRoutes`. */
export interface AdminReloadOptions {
  /**
   * Reads the config file again and applies the difference; answers what changed, or throws
   * (`config_invalid` for a config refused as a whole, the running one kept).
   */
  reload: () => Promise<unknown>;
  /** True when `auth` configures credentials: only an admin identity may reload then. */
  authRequired: boolean;
}

/** The route in the OpenAPI document, with the error responses of the document's conventions. */
export function adminReloadOperation(errors: Record<string, unknown>): Record<string, unknown> {
  return {
    operationId: 'reloadConfig',
    summary: 'Read the config file again and apply what changed (an admin identity when auth is on)',
    responses: {
      '200': {
        description:
          'What changed: sections, servers added/removed/changed, what was applied and what needs a restart',
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: { success: { const: true }, result: { type: 'object' } },
              required: ['success', 'result'],
            },
          },
        },
      },
      ...errors,
    },
  };
}

/**
 * `POST /api/admin/reload`: the management API's way to apply an edited config without a restart,
 * as a file change or SIGHUP does. Reloading changes what every caller sees, so with auth on it
 * takes an admin identity (`auth.apiKeys[].admin`); without auth (a loopback gateway) anyone who
 * can reach the gateway could restart it anyway.
 */
export function adminReloadRoutes(options: AdminReloadOptions): Hono {
  const app = new Hono();
  app.post(ADMIN_RELOAD_PATH, async (c) => {
    if (options.authRequired) {
      const caller = requestCaller(c);
      // The auth middleware answers 401 before this; kept so the route is safe on its own.
      if (!caller) return restError(c, new GatewayError('unauthorized', 'Reloading needs credentials'));
      if (caller.admin !== true) {
        return restError(
          c,
          new GatewayError(
            'forbidden',
            'Reloading the config needs an admin identity (auth.apiKeys[].admin: true)',
          ),
        );
      }
    }
    try {
      return c.json({ success: true, result: await options.reload() });
    } catch (error) {
      return restError(c, error);
    }
  });
  app.all(ADMIN_RELOAD_PATH, (c) =>
    restError(
      c,
      new GatewayError('method_not_allowed', `${c.req.method} is not allowed on ${c.req.path}; use POST`),
    ),
  );
  return app;
}
