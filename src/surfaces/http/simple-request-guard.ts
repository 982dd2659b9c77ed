import type { Context, MiddlewareHandler } from 'hono';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { httpError, jsonRpcErrorResponse } from './http-error.js';

/**
 * The header a client without a body sends to mark a state-changing request as deliberate. Any
 * value will do: what matters is that a browser cannot send it cross-origin without a preflight.
 */
export const REQUEST_MARKER_HEADER = 'x-aperture-request';

/**
 * Headers that also prove a request is not a CORS "simple" one: an HTML form cannot set them,
 * and `fetch` sets them cross-origin only after a preflight (that CORS refuses unless the origin
 * is allowed). MCP clients send `mcp-session-id` on DELETE; API clients send their credential.
 */
const NON_SIMPLE_HEADERS = [REQUEST_MARKER_HEADER, 'mcp-session-id', 'authorization', 'x-api-key'] as const;

/** `application/json`, or any `+json` type (`application/merge-patch+json`), parameters aside. */
const JSON_MEDIA_TYPE = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;

// Paths that speak JSON-RPC answer its error shape, the rest the REST one.
const JSON_RPC_PATHS = /^\/(?:mcp(?:\/[^/]+)?|messages|a2a)$/;

/**
 * Refuses a POST (any path) that a page on another origin could send without a CORS preflight:
 * an HTML form post, or `fetch(…, {mode: 'no-cors'})`. Such "simple" requests reach the server
 * whatever the CORS settings, from `localhost` when the page is on another local port; only their
 * answer is hidden. So every POST must carry what a simple request cannot:
 * - a JSON body (`Content-Type: application/json` or `…+json`), or
 * - no body, and one of the headers above (`X-Aperture-Request: 1` for a client with no other).
 * Anything else is answered 415 `unsupported_media_type` before any route runs. Other methods
 * pass: PUT, PATCH and DELETE are never simple (a browser preflights them, and no form sends
 * them), and no GET route changes state (the OAuth callback is bound to a one-time `state`).
 * Mounted after authentication, so a caller without credentials still learns that first (401).
 */
export function simpleRequestGuard(): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method !== 'POST') return next();
    const type = c.req.header('content-type');
    if (type !== undefined && JSON_MEDIA_TYPE.test(type)) return next();
    if (
      type === undefined &&
      !hasBody(c) &&
      NON_SIMPLE_HEADERS.some((name) => c.req.header(name) !== undefined)
    )
      return next();
    const error = new GatewayError(
      'unsupported_media_type',
      type === undefined && !hasBody(c)
        ? `A POST without a body needs an ${REQUEST_MARKER_HEADER} header (or Content-Type: application/json), so that no other site can send it`
        : `A POST needs Content-Type: application/json (got ${type ?? 'none'}), so that no other site can send it`,
    );
    return JSON_RPC_PATHS.test(c.req.path) ? jsonRpcErrorResponse(c, error) : httpError(c, error);
  };
}

/** Whether the request announces a body (a `Content-Length` above 0, or a chunked one). */
function hasBody(c: Context): boolean {
  const length = c.req.header('content-length');
  return (length !== undefined && length !== '0') || c.req.header('transfer-encoding') !== undefined;
}
