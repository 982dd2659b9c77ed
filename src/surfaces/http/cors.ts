import type { MiddlewareHandler } from 'hono';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { httpError } from './http-error.js';

export interface CorsOptions {
  /** Allowed origins (`scheme://host[:port]`), or `["*"]`. Empty: CORS off. */
  origins: readonly string[];
}

const ALLOWED_METHODS = 'GET, POST, DELETE, OPTIONS';
const ALLOWED_HEADERS =
  'content-type, authorization, x-api-key, mcp-session-id, mcp-protocol-version, last-event-id, x-aperture-request';
const EXPOSED_HEADERS = 'mcp-session-id, mcp-protocol-version, www-authenticate, retry-after';

/** True when `origin` may make cross-origin requests under these options. */
export function isAllowedOrigin(origin: string, options: CorsOptions): boolean {
  return options.origins.includes('*') || options.origins.includes(origin);
}

/**
 * CORS, off until `http.cors.origins` lists origins (docs/DESIGN.md §4). Preflights are answered for
 * allowed origins only (403 otherwise); actual responses to allowed origins carry the headers.
 */
export function cors(options: CorsOptions): MiddlewareHandler {
  return async (c, next) => {
    const origin = c.req.header('origin');
    if (!origin || options.origins.length === 0) {
      if (c.req.method === 'OPTIONS' && origin && c.req.header('access-control-request-method')) {
        return httpError(
          c,
          new GatewayError('forbidden', 'Cross-origin requests are not enabled (http.cors.origins)'),
        );
      }
      return next();
    }
    const allowed = isAllowedOrigin(origin, options);
    if (c.req.method === 'OPTIONS' && c.req.header('access-control-request-method')) {
      if (!allowed) return httpError(c, new GatewayError('forbidden', `Origin ${origin} is not allowed`));
      return new Response(null, {
        status: 204,
        headers: {
          'access-control-allow-origin': options.origins.includes('*') ? '*' : origin,
          'access-control-allow-methods': ALLOWED_METHODS,
          'access-control-allow-headers': ALLOWED_HEADERS,
          'access-control-max-age': '600',
          vary: 'Origin',
        },
      });
    }
    await next();
    if (allowed) {
      c.res.headers.set('access-control-allow-origin', options.origins.includes('*') ? '*' : origin);
      c.res.headers.set('access-control-expose-headers', EXPOSED_HEADERS);
      c.res.headers.append('vary', 'Origin');
    }
    return undefined;
  };
}
