import type { CallerContext } from '../../foundation/ports/tool-backend.js';
import { maskStrings } from '../../operations/secrets/secret-masker.js';
import { consoleParts } from '../admin-parts.js';
import type { FeatureFactory } from './feature.js';
import { reconnectServer } from './sources.js';

/**
 * The web console (`/`) and the management API behind it (`/api/admin/…`, reload included): what
 * it may read (the masked config, source states, the live log) and operate (reconnect, log in,
 * try tools, install servers from the registries). The page is on by default only where just this machine can reach it.
 */
export const adminConsole: FeatureFactory = (_config, parts) => {
  const { maskSecrets } = parts.gateway;
  const remote = parts.need('remote');
  const oauth = parts.need('oauth');
  const { admin, composition } = consoleParts({
    config: () => parts.config(),
    activity: parts.need('activity'),
    naming: parts.need('naming'),
    toolsets: parts.need('toolsets'),
    code: parts.need('code'),
    skills: () => parts.need('skills').current,
    tokenCounter: () => parts.need('exposure').meter(),
    // The console sees more than /readyz (uptime, stderr lines), masked alike.
    sources: () => maskStrings(remote.adminStatuses(), maskSecrets),
    circuit: (id) => parts.need('policies').current.breakers?.state(id),
    reconnect: (name) => reconnectServer(remote, name),
    ...(oauth.enabled
      ? {
          oauth: {
            perUser: (name: string) => oauth.perUserServer(name),
            login: (name: string, identity: string) => oauth.startLogin(name, identity),
            owner: (caller: CallerContext) =>
              caller.authMethod === undefined
                ? caller.identity
                : oauth.tokenSetOwner(caller.identity, caller.authMethod),
          },
        }
      : {}),
    maskSecrets,
  });
  return {
    name: 'console',
    http: {
      routes: async ({ surface, authEnabled }) => {
        const { compositionRoutes } = await import('../../surfaces/console/composition-routes.js');
        const { adminReloadRoutes } = await import('../../surfaces/console/admin-reload-route.js');
        const { adminRoutes } = await import('../../surfaces/console/admin-routes.js');
        const { installRoutes } = await import('../../surfaces/console/install-routes.js');
        const { serverInstaller } = await import('../server-installer.js');
        const installer = serverInstaller({
          configFile: () => parts.gateway.loaded().file,
          sandboxDefault: () => parts.config().sandbox.default,
          state: parts.need('searchBacking').state,
          reload: () => parts.gateway.reload('api'),
        });
        return [
          compositionRoutes(surface, composition),
          adminReloadRoutes({ reload: () => parts.gateway.reload('api'), authRequired: authEnabled }),
          installRoutes({ installer, authEnabled, maxBodyBytes: surface.maxBodyBytes }),
          // Last: it ends with a catch-all 404 for unknown /api/admin paths.
          adminRoutes(surface, { ...admin, authEnabled }),
        ];
      },
      // The page and assets need no credentials (the page asks for them itself).
      beforeAuth: async ({ host }) => {
        const { isLoopback } = await import('../../surfaces/http/host-guard.js');
        if (!(parts.config().console.enabled ?? isLoopback(host))) return [];
        const { consoleRoutes } = await import('../../surfaces/console/console-routes.js');
        return [consoleRoutes()];
      },
    },
  };
};
