import { GatewayError } from '../../foundation/model/gateway-error.js';
import { type ApiKeyEntry, ApiKeyVerifier } from './api-key-verifier.js';
import type { AuthIdentity } from './auth-identity.js';
import { IntrospectionVerifier, type IntrospectionVerifierOptions } from './introspection-verifier.js';
import { authFailure, JwtVerifier, type JwtVerifierOptions } from './jwt-verifier.js';
import { type RoleGrant, RoleTable } from './role-table.js';

export interface AuthenticatorOptions {
  /** Static API keys, sent as `Authorization: Bearer <key>` or `X-API-Key: <key>`. */
  apiKeys?: readonly ApiKeyEntry[];
  /** Bearer JWTs from an identity provider. */
  jwt?: JwtVerifierOptions;
  /** Opaque bearer tokens checked at an RFC 7662 introspection endpoint. */
  introspection?: IntrospectionVerifierOptions;
  /** `auth.roles`: what each role grants. */
  roles?: Readonly<Record<string, RoleGrant>>;
  /** The token claim naming the caller's roles (JWT or introspection). */
  roleClaim?: string | undefined;
}

/** The credentials a request carries (header values as received). */
export interface Credentials {
  authorization?: string | undefined;
  apiKey?: string | undefined;
}

/** A compact JWS: three base64url segments. */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * Turns a request's credentials into an identity: an API key (constant-time comparison), a JWT
 * (when `jwt` is configured) or an opaque token checked by introspection (when `introspection` is
 * configured; a JWT-shaped token goes to `jwt` when both are), with the roles it holds applied. `Authorization: Bearer` is read first, `X-API-Key` when there is no
 * bearer token. Throws GatewayErrors whose `details.reason` tells the HTTP layer what to answer:
 * `unauthorized` + `missing` / `invalid_token`, `forbidden` + `insufficient_scope`, or
 * `backend_unavailable` when a JWKS cannot be fetched.
 */
export class Authenticator {
  private readonly keys: ApiKeyVerifier;
  private readonly jwt: JwtVerifier | undefined;
  private readonly introspection: IntrospectionVerifier | undefined;
  private readonly roles: RoleTable;

  constructor(options: AuthenticatorOptions) {
    this.keys = new ApiKeyVerifier(options.apiKeys ?? []);
    this.jwt = options.jwt ? new JwtVerifier(options.jwt) : undefined;
    this.introspection = options.introspection ? new IntrospectionVerifier(options.introspection) : undefined;
    this.roles = new RoleTable(options.roles ?? {}, options.roleClaim);
  }

  /** Whether any credential is configured (otherwise every surface is open). */
  get enabled(): boolean {
    return this.keys.size > 0 || this.jwt !== undefined || this.introspection !== undefined;
  }

  async authenticate(credentials: Credentials): Promise<AuthIdentity> {
    const identity = await this.verify(credentials);
    return this.roles.apply(identity);
  }

  private async verify(credentials: Credentials): Promise<AuthIdentity> {
    const bearer = bearerToken(credentials.authorization);
    const apiKey = credentials.apiKey?.trim();
    if (bearer === '') throw authFailure('unauthorized', 'invalid_token', 'The bearer token is empty');
    if (bearer === undefined && !apiKey) {
      const other = credentials.authorization?.trim();
      throw authFailure(
        'unauthorized',
        'missing',
        other
          ? `Unsupported Authorization scheme "${other.split(/\s+/)[0]}"; send "Authorization: Bearer <token>" or "X-API-Key: <key>"`
          : 'Credentials required: send "Authorization: Bearer <token>" or "X-API-Key: <key>"',
      );
    }
    if (bearer !== undefined) {
      const byKey = this.keys.verify(bearer);
      if (byKey) return byKey;
      if (this.jwt && JWT_SHAPE.test(bearer)) return this.jwt.verify(bearer);
      if (this.introspection) return this.introspection.verify(bearer);
      throw authFailure('unauthorized', 'invalid_token', 'The bearer token is not valid');
    }
    const byKey = this.keys.verify(apiKey as string);
    if (byKey) return byKey;
    throw authFailure('unauthorized', 'invalid_token', 'The API key is not valid');
  }
}

/**
 * The token of `Bearer <token>` (scheme case-insensitive); `''` for a Bearer header without a
 * usable token; undefined for other schemes or none.
 */
function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined || !/^\s*Bearer(\s|$)/i.test(header)) return undefined;
  return /^\s*Bearer\s+(\S+)\s*$/i.exec(header)?.[1] ?? '';
}

/** True when `error` is an authentication failure (as opposed to an unavailable key set). */
export function isAuthFailure(error: unknown): error is GatewayError {
  return error instanceof GatewayError && (error.code === 'unauthorized' || error.code === 'forbidden');
}
