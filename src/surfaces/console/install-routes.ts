import type { Hono } from 'hono';
import type { InstallPlan, InstallRequest, RegistrySearch } from './admin-contract.js';
import { adminRouter } from './admin-router.js';

/**
 * What the routes need to install servers by name: the registry search and the install of
 * `aperture add`, wired above this layer (they read and write the config file) and passed down.
 */
export interface ServerInstaller {
  search(query: string, limit: number): Promise<RegistrySearch>;
  /** The install a request would make; `write` false: nothing written. */
  install(request: InstallRequest, write: boolean): Promise<InstallPlan>;
}

/** Options of {@link installRoutes}. */
export interface InstallRoutesOptions {
  installer: ServerInstaller;
  /** True when auth is configured: then only an admin identity may use the routes. */
  authEnabled: boolean;
  maxBodyBytes: number;
}

/**
 * The console's "Add server" flow (`adminRegistrySearch`, `adminInstallPlan`,
 * `adminInstallServer`): search the configured registries, see what a server needs, add it. Admin
 * only with auth on: an install changes what every agent is served and starts programs on this
 * machine. Secrets never travel as values here; the entry names `${secret:NAME}` for the user to store.
 */
export function installRoutes(options: InstallRoutesOptions): Hono {
  const { app, serve } = adminRouter({
    authEnabled: options.authEnabled,
    maxBodyBytes: options.maxBodyBytes,
  });
  serve({
    adminRegistrySearch: ({ query }) => {
      const limit = Number(query.limit ?? 30);
      return options.installer.search(
        query.search ?? '',
        Number.isInteger(limit) ? Math.min(Math.max(limit, 1), 200) : 30,
      );
    },
    adminInstallPlan: async ({ body }) => options.installer.install(await body(), false),
    adminInstallServer: async ({ body }) => options.installer.install(await body(), true),
  });
  return app;
}
