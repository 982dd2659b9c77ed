import type { Hono, MiddlewareHandler } from 'hono';
import type { Logger } from '../../foundation/ports/logger.js';
import { A2A_CARD_PATH, A2A_LEGACY_CARD_PATH } from '../a2a/a2a-paths.js';
import { type AuthMiddlewareOptions, authMiddleware } from './auth-middleware.js';
import {
  PROTECTED_RESOURCE_PATH,
  protectedResourceRoutes,
  resourceMetadataUrl,
} from './protected-resource-routes.js';

export interface HttpAuthOptions {
  authenticator: AuthMiddlewareOptions['authenticator'];
  /** RFC 9728 metadata naming the authorization servers (MCP authorization spec). */
  oauth?:
    | {
        authorizationServers: readonly string[];
        resource?: string | undefined;
        scopesSupported?: readonly string[] | undefined;
      }
    | undefined;
  /** `resource_name` of the metadata. */
  resourceName: string;
  /** Whether a toolset of that name exists (its MCP endpoint gets metadata). */
  hasToolset: (name: string) => boolean;
  /** Called for every request whose credentials were verified. */
  onAuthenticated?: AuthMiddlewareOptions['onAuthenticated'];
}

/**
 * Paths that stay open when auth is on: liveness and readiness (probes carry no credentials), the
 * protected resource metadata (clients read it to learn how to get a token), and the A2A agent
 * card (public discovery metadata in the A2A spec; it lists skills only to authenticated callers),
 * and the OAuth login callback of per-user downstream servers.
 */
export function isPublicPath(path: string): boolean {
  return (
    path === '/healthz' ||
    path === '/readyz' ||
    // A browser coming back from an authorization server carries no gateway credentials; the
    // one-time `state` of a login the gateway handed out is what it is checked against.
    path === '/oauth/callback' ||
    path === PROTECTED_RESOURCE_PATH ||
    path.startsWith(`${PROTECTED_RESOURCE_PATH}/`) ||
    path === A2A_CARD_PATH ||
    path === A2A_LEGACY_CARD_PATH
  );
}

/** The authentication middleware for every route, and the metadata routes when OAuth is set. */
export function httpAuth(options: HttpAuthOptions & { log: Logger }): {
  middleware: MiddlewareHandler;
  routes: Hono | undefined;
} {
  const { oauth } = options;
  return {
    middleware: authMiddleware({
      authenticator: options.authenticator,
      isPublic: isPublicPath,
      ...(options.onAuthenticated ? { onAuthenticated: options.onAuthenticated } : {}),
      ...(oauth ? { resourceMetadataUrl: (c) => resourceMetadataUrl(c, oauth.resource) } : {}),
      log: options.log,
    }),
    routes: oauth
      ? protectedResourceRoutes({
          authorizationServers: oauth.authorizationServers,
          ...(oauth.resource !== undefined ? { resource: oauth.resource } : {}),
          ...(oauth.scopesSupported !== undefined ? { scopesSupported: oauth.scopesSupported } : {}),
          resourceName: options.resourceName,
          hasToolset: options.hasToolset,
        })
      : undefined,
  };
}
