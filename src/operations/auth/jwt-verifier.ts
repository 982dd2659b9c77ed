import { createPublicKey, type KeyObject } from 'node:crypto';
import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { authFailure } from './auth-failure.js';
import type { AuthIdentity } from './auth-identity.js';
import { DEFAULT_JWT_ALGORITHMS } from './jwt-algorithms.js';
import { claimValue, isAdminValue, toolsetsOf } from './token-claims.js';

/** Clock skew tolerated on `exp` / `nbf` (the config's `auth.jwt.clockToleranceSec` default). */
export const DEFAULT_CLOCK_TOLERANCE_SEC = 30;

export interface JwtVerifierOptions {
  /** Where the issuer publishes its signing keys (JWKS); fetched lazily, cached, refetched for unknown `kid`s. */
  jwksUrl?: string | undefined;
  /** Or one public key: PEM (SPKI or X.509 certificate) or a JWK as JSON text. */
  publicKey?: string | undefined;
  /** Accepted `iss` values. */
  issuer: string | readonly string[];
  /** Accepted `aud` values (the token must name at least one). */
  audience: string | readonly string[];
  /**
   * Claim holding the toolsets the token grants: an array of names or a space-separated string;
   * `"*"` grants every toolset. A dotted path (`aperture.toolsets`) reaches into nested claims.
   * Unset: tokens are unconfined.
   */
  toolsetsClaim?: string | undefined;
  /**
   * Claim marking an administrator (`auth.apiKeys[].admin` for tokens): `true`, or a list or a
   * space-separated string of roles that includes `admin`. A dotted path reaches nested claims.
   * Unset: no token is an administrator.
   */
  adminClaim?: string | undefined;
  /** Accepted algorithms. Default {@link DEFAULT_JWT_ALGORITHMS}. */
  algorithms?: readonly string[] | undefined;
  /** Leeway for `exp`/`nbf`, in seconds. Default 30. */
  clockToleranceSec?: number | undefined;
  /** How long a JWKS request may take. Default 5000 ms. */
  jwksTimeoutMs?: number | undefined;
  /** Verified tokens remembered (until they expire, at most 5 minutes). Default 1000; 0 disables. */
  cacheSize?: number | undefined;
}

/** A verified token is re-verified after this long even if it expires later. */
const MAX_CACHE_MS = 5 * 60_000;

export { authFailure } from './auth-failure.js';

type Jose = typeof import('jose');

/**
 * jose, imported on the first token rather than with the gateway: most gateways verify no JWT,
 * and its ~100 KB would otherwise be compiled before a stdio client's first `tools/list`.
 */
let jose: Promise<Jose> | undefined;
function loadJose(): Promise<Jose> {
  jose ??= import('jose');
  return jose;
}

/**
 * Verifies bearer JWTs with `jose`: signature (JWKS or a fixed public key), `iss`, `aud`, `exp`,
 * `nbf`, and a `sub`, which becomes the identity. Failures are GatewayErrors: `unauthorized`
 * (details.reason `invalid_token`) for a bad token, `forbidden` (`insufficient_scope`) for a valid
 * token without the toolsets claim, and `backend_unavailable` when the JWKS cannot be fetched —
 * the caller's token may be fine, so it must not be told to discard it.
 */
export class JwtVerifier {
  /** The fixed public key, or the JWKS URL whose key set is built with jose on the first token. */
  private readonly keySource: KeyObject | URL;
  private keySet: JWTVerifyGetKey | undefined;
  private readonly issuer: string[];
  private readonly audience: string[];
  private readonly algorithms: string[];
  private readonly clockTolerance: number;
  /** Verified tokens → identity and until when it may be reused (insertion order = age). */
  private readonly verified = new Map<string, { identity: AuthIdentity; until: number }>();
  private readonly cacheSize: number;

  constructor(private readonly options: JwtVerifierOptions) {
    if ((options.jwksUrl === undefined) === (options.publicKey === undefined)) {
      throw new GatewayError('config_invalid', 'auth.jwt: set exactly one of "jwksUrl" and "publicKey"', {
        details: { path: 'auth.jwt' },
      });
    }
    this.keySource =
      options.jwksUrl !== undefined ? new URL(options.jwksUrl) : parsePublicKey(options.publicKey as string);
    this.issuer = [options.issuer].flat();
    this.audience = [options.audience].flat();
    this.algorithms = [...(options.algorithms ?? DEFAULT_JWT_ALGORITHMS)];
    this.clockTolerance = options.clockToleranceSec ?? DEFAULT_CLOCK_TOLERANCE_SEC;
    this.cacheSize = options.cacheSize ?? 1000;
  }

  /**
   * The identity of a valid token. A token verified before is answered from a bounded cache until
   * its `exp` (at most 5 minutes): signature verification costs far more than the rest of a
   * request, and every request of a session carries the same token.
   */
  async verify(token: string): Promise<AuthIdentity> {
    const known = this.verified.get(token);
    if (known && known.until > Date.now()) return known.identity;
    if (known) this.verified.delete(token);
    return this.verifyToken(token);
  }

  private remember(token: string, identity: AuthIdentity, exp: number | undefined): void {
    if (this.cacheSize === 0 || exp === undefined) return;
    const until = Math.min(exp * 1000, Date.now() + MAX_CACHE_MS);
    if (this.verified.size >= this.cacheSize) {
      const oldest = this.verified.keys().next().value;
      if (oldest !== undefined) this.verified.delete(oldest);
    }
    this.verified.set(token, { identity, until });
  }

  private async verifyToken(token: string): Promise<AuthIdentity> {
    const { createRemoteJWKSet, errors, jwtVerify } = await loadJose();
    const source = this.keySource;
    if (source instanceof URL) {
      this.keySet ??= createRemoteJWKSet(source, {
        timeoutDuration: this.options.jwksTimeoutMs ?? 5000,
        // A token signed with a new key triggers a refetch at most this often.
        cooldownDuration: 30_000,
        cacheMaxAge: 600_000,
      });
    }
    const keySet = this.keySet;
    let payload: JWTPayload;
    try {
      const verifyOptions = {
        issuer: this.issuer,
        audience: this.audience,
        algorithms: this.algorithms,
        clockTolerance: this.clockTolerance,
        requiredClaims: ['exp'],
      };
      // Two calls rather than a union argument: jose overloads on the key's type.
      ({ payload } =
        keySet !== undefined
          ? await jwtVerify(token, keySet, verifyOptions)
          : await jwtVerify(token, source as KeyObject, verifyOptions));
    } catch (error) {
      throw verificationError(error, errors);
    }
    if (typeof payload.sub !== 'string' || payload.sub === '') {
      throw authFailure('unauthorized', 'invalid_token', 'The token has no "sub" claim');
    }
    const identity: AuthIdentity = { identity: payload.sub, method: 'jwt' };
    const claim = this.options.toolsetsClaim;
    if (claim !== undefined) {
      const granted = toolsetsOf(payload, claim);
      if (granted !== '*') identity.toolsets = Object.freeze(granted);
    }
    const adminClaim = this.options.adminClaim;
    if (adminClaim !== undefined && isAdminValue(claimValue(payload, adminClaim))) identity.admin = true;
    // Kept beside the identity, not in it: policy rules read them (`caller.claims`), nothing else.
    rememberClaims(identity, payload);
    this.remember(token, identity, payload.exp);
    return identity;
  }
}

const verifiedClaims = new WeakMap<AuthIdentity, Readonly<Record<string, unknown>>>();

/** Keeps a token's verified claims beside the identity made from it (JWT or introspection). */
export function rememberClaims(identity: AuthIdentity, claims: Readonly<Record<string, unknown>>): void {
  verifiedClaims.set(identity, Object.freeze({ ...claims }));
}

/** The verified claims of an identity made from a token; undefined for any other. */
export function identityClaims(identity: AuthIdentity): Readonly<Record<string, unknown>> | undefined {
  return verifiedClaims.get(identity);
}

function parsePublicKey(text: string): KeyObject {
  try {
    const trimmed = text.trim();
    const key = trimmed.startsWith('{')
      ? createPublicKey({ key: JSON.parse(trimmed) as import('node:crypto').JsonWebKey, format: 'jwk' })
      : createPublicKey(trimmed);
    if (key.asymmetricKeyType === undefined) throw new Error('not an asymmetric key');
    return key;
  } catch (error) {
    throw new GatewayError(
      'config_invalid',
      `auth.jwt.publicKey: not a usable public key (PEM or JWK): ${(error as Error).message}`,
      { details: { path: 'auth.jwt.publicKey' }, cause: error },
    );
  }
}

function verificationError(error: unknown, errors: Jose['errors']): GatewayError {
  if (error instanceof GatewayError) return error;
  // The key set could not be had: not the token's fault.
  if (
    error instanceof errors.JWKSTimeout ||
    error instanceof errors.JWKSInvalid ||
    !(error instanceof errors.JOSEError) ||
    error.code === 'ERR_JOSE_GENERIC'
  ) {
    return new GatewayError(
      'backend_unavailable',
      `Cannot verify the token now: the signing keys are unavailable (${(error as Error).message})`,
      { cause: error },
    );
  }
  const message =
    error instanceof errors.JWTExpired
      ? 'The token has expired'
      : error instanceof errors.JWTClaimValidationFailed
        ? `The token's "${error.claim}" claim is not accepted (${error.reason})`
        : error instanceof errors.JWKSNoMatchingKey
          ? 'No signing key matches the token'
          : error instanceof errors.JWSSignatureVerificationFailed
            ? 'The token signature is not valid'
            : error instanceof errors.JOSEAlgNotAllowed
              ? 'The token is signed with an algorithm that is not accepted'
              : 'The token is not a valid JWT';
  return authFailure('unauthorized', 'invalid_token', message);
}
