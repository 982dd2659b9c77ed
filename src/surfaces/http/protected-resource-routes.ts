import { type Context, Hono } from 'hono';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { httpError } from './http-error.js';

/** Where the OAuth 2.0 protected resource metadata is served (RFC 9728 §3). */
export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

export interface ProtectedResourceOptions {
  /** Issuers of the tokens this gateway accepts. */
  authorizationServers: readonly string[];
  /** The gateway's public base URL; default: the origin each request reached it at. */
  resource?: string;
  scopesSupported?: readonly string[];
  /** Human-readable name of the resource (`resource_name`). */
  resourceName: string;
  /** Whether `/mcp/{toolset}` names an existing toolset (its metadata is served, others 404). */
  hasToolset: (name: string) => boolean;
}

/** The RFC 9728 document for one resource identifier. */
export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  bearer_methods_supported: ['header'];
  resource_name: string;
  scopes_supported?: string[];
}

/** The base URL of the gateway as the client sees it. */
export function publicBaseUrl(c: Context, resource: string | undefined): string {
  return (resource ?? new URL(c.req.url).origin).replace(/\/+$/, '');
}

/**
 * The URL of the metadata document describing the endpoint a request went to: MCP endpoints
 * (`/mcp`, `/mcp/{toolset}`, and the legacy `/sse` + `/messages`, which serve `/mcp`'s catalog)
 * get their path-suffixed document, everything else the root one (RFC 9728 §3.1).
 */
export function resourceMetadataUrl(c: Context, resource: string | undefined): string {
  const base = publicBaseUrl(c, resource);
  const path = c.req.path;
  const mcp = /^\/mcp(\/[^/]+)?\/?$/.exec(path);
  if (mcp) return `${base}${PROTECTED_RESOURCE_PATH}/mcp${mcp[1] ?? ''}`;
  if (path === '/sse' || path === '/messages') return `${base}${PROTECTED_RESOURCE_PATH}/mcp`;
  return `${base}${PROTECTED_RESOURCE_PATH}`;
}

/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728), as the MCP authorization spec asks of a
 * protected MCP server: at the root for the gateway as a whole, and path-suffixed for each MCP
 * endpoint (`…/oauth-protected-resource/mcp`, `…/mcp/{toolset}`), each naming its own resource
 * identifier, as §3.3 requires. Public, cacheable, and readable cross-origin (browser clients
 * discover authorization before they hold a token).
 */
export function protectedResourceRoutes(options: ProtectedResourceOptions): Hono {
  const app = new Hono();
  const serve = (c: Context, suffix: string) => {
    const body: ProtectedResourceMetadata = {
      resource: `${publicBaseUrl(c, options.resource)}${suffix}`,
      authorization_servers: [...options.authorizationServers],
      bearer_methods_supported: ['header'],
      resource_name: options.resourceName,
    };
    if (options.scopesSupported) body.scopes_supported = [...options.scopesSupported];
    return c.json(body, 200, { 'cache-control': 'max-age=300', 'access-control-allow-origin': '*' });
  };
  app.get(PROTECTED_RESOURCE_PATH, (c) => serve(c, ''));
  app.get(`${PROTECTED_RESOURCE_PATH}/mcp`, (c) => serve(c, '/mcp'));
  app.get(`${PROTECTED_RESOURCE_PATH}/mcp/:toolset`, (c) => {
    const toolset = c.req.param('toolset');
    if (!options.hasToolset(toolset))
      return httpError(c, new GatewayError('not_found', `No toolset "${toolset}"`));
    return serve(c, `/mcp/${toolset}`);
  });
  return app;
}
