import type { Context, MiddlewareHandler } from 'hono';
import { httpStatusOf } from '../../foundation/model/error-tables.js';
import { GatewayError, toGatewayError } from '../../foundation/model/gateway-error.js';
import type { Logger } from '../../foundation/ports/logger.js';
import type { CallerContext } from '../../foundation/ports/tool-backend.js';
import type { AuthFailureReason, AuthIdentity } from '../../operations/auth/auth-identity.js';
import type { Credentials } from '../../operations/auth/authenticator.js';
import { identityClaims } from '../../operations/auth/jwt-verifier.js';
import { httpError } from './http-error.js';
import { setRequestCaller } from './request-caller.js';

export interface AuthMiddlewareOptions {
  authenticator: { authenticate(credentials: Credentials): Promise<AuthIdentity> };
  /** Paths served without credentials (health, metadata); credentials sent there are still read. */
  isPublic: (path: string) => boolean;
  /** URL of the protected resource metadata for a request; absent when OAuth is not configured. */
  resourceMetadataUrl?: (c: Context) => string;
  /** Called for every request whose credentials were verified (the connection is then trusted). */
  onAuthenticated?: (c: Context) => void;
  /** `realm` of the challenge. Default "aperture". */
  realm?: string;
  log: Logger;
}

/** The caller a verified identity becomes. */
export function callerOf(identity: AuthIdentity): CallerContext {
  const caller: CallerContext = { identity: identity.identity, authMethod: identity.method };
  if (identity.toolsets !== undefined) caller.toolsets = identity.toolsets;
  if (identity.admin === true) caller.admin = true;
  if (identity.roles !== undefined) caller.roles = identity.roles;
  const claims = identityClaims(identity);
  if (claims !== undefined) caller.claims = claims;
  return caller;
}

/**
 * Authentication for every HTTP surface (Hono `bearerAuth` style): reads `Authorization: Bearer`
 * or `X-API-Key`, and records the caller for the routes (`requestCaller`). A request without
 * valid credentials gets 401 with a `WWW-Authenticate: Bearer` challenge — `error="invalid_token"`
 * when credentials were sent, `resource_metadata` pointing at the RFC 9728 document when OAuth is
 * configured (MCP authorization spec) — and the REST error body; a valid token granting no
 * toolset gets 403 `insufficient_scope`; an unreachable JWKS gets 503. Public paths pass without
 * credentials; credentials sent to them are used when valid (a scoped agent card) and ignored
 * otherwise.
 */
export function authMiddleware(options: AuthMiddlewareOptions): MiddlewareHandler {
  const realm = options.realm ?? 'aperture';
  const { log } = options;
  return async (c, next) => {
    const credentials: Credentials = {
      authorization: c.req.header('authorization'),
      apiKey: c.req.header('x-api-key'),
    };
    const open = options.isPublic(c.req.path);
    if (open && credentials.authorization === undefined && credentials.apiKey === undefined) return next();
    let identity: AuthIdentity;
    try {
      identity = await options.authenticator.authenticate(credentials);
    } catch (error) {
      if (open) return next();
      return refuse(c, toGatewayError(error));
    }
    setRequestCaller(c, callerOf(identity));
    options.onAuthenticated?.(c);
    return next();
  };

  function refuse(c: Context, error: GatewayError): Response {
    const reason = (error.details?.reason as AuthFailureReason | undefined) ?? undefined;
    if (error.code === 'unauthorized' || error.code === 'forbidden') {
      const status = httpStatusOf(error.code);
      const params: string[] = [`realm="${realm}"`];
      if (reason === 'invalid_token' || reason === 'insufficient_scope') {
        params.push(`error="${reason}"`, `error_description="${quoted(error.message)}"`);
      }
      if (options.resourceMetadataUrl) params.push(`resource_metadata="${options.resourceMetadataUrl(c)}"`);
      c.header('www-authenticate', `Bearer ${params.join(', ')}`);
      log.info(
        { path: c.req.path, status, reason: reason ?? error.code, message: error.message },
        'request refused by authentication',
      );
      return httpError(c, error);
    }
    if (error.code === 'backend_unavailable') {
      log.warn({ err: error.message, path: c.req.path }, 'cannot verify credentials');
      c.header('retry-after', '5');
      return httpError(c, error);
    }
    log.error({ err: error, path: c.req.path }, 'authentication failed unexpectedly');
    return httpError(c, new GatewayError('internal', 'Internal error'));
  }
}

/** A value fit for a quoted-string of a challenge (RFC 9110 §5.6.4). */
function quoted(text: string): string {
  return text.replace(/[\\"]/g, "'").replace(/[^\x20-\x7e]/g, '?');
}

/** A 403 for a caller asking for a toolset it is not granted (or 404 for one that does not exist). */
export function scopeError(c: Context, error: unknown): Response {
  const failure = toGatewayError(error);
  if (failure.code === 'not_found') return httpError(c, failure);
  if (failure.code === 'forbidden') {
    // RFC 6750 §3.1: valid credentials without the rights the request needs.
    c.header(
      'www-authenticate',
      `Bearer error="insufficient_scope", error_description="${quoted(failure.message)}"`,
    );
    return httpError(c, failure);
  }
  throw error instanceof GatewayError ? error : failure;
}
