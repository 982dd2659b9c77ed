import type { Hono } from 'hono';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { ADMIN_API } from './admin-contract.js';
import { adminRouter, honoPath } from './admin-router.js';

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

/**
 * `POST /api/admin/reload` (`reloadConfig` in the contract): the management API's way to apply an
 * edited config without a restart, as a file change or SIGHUP does. Reloading changes what every
 * caller sees, so with auth on it takes an admin identity (`auth.apiKeys[].admin`); without auth
 * (a loopback gateway) anyone who can reach the gateway could restart it anyway.
 */
export function adminReloadRoutes(options: AdminReloadOptions): Hono {
  // The route reads no body: the body limit never applies.
  const { app, serve } = adminRouter({ authEnabled: options.authRequired, maxBodyBytes: 0 });
  serve({
    // The reloader's outcome is an object of its own (above this layer); the contract only says so.
    reloadConfig: async () => ({
      success: true,
      result: (await options.reload()) as Record<string, unknown>,
    }),
  });
  // Any other method on the path is told to POST rather than sent to the admin API's 404.
  const path = honoPath(ADMIN_API.reloadConfig.path);
  app.all(path, (c) => {
    throw new GatewayError('method_not_allowed', `${c.req.method} is not allowed on ${c.req.path}; use POST`);
  });
  return app;
}
