import { GatewayError } from '../../foundation/model/gateway-error.js';
import { authFailure } from './auth-failure.js';
import type { AuthIdentity } from './auth-identity.js';
import { rememberClaims } from './jwt-verifier.js';
import { claimValue, isAdminValue, toolsetsOf } from './token-claims.js';

/** How long an active answer is reused when `cacheMs` is not set. */
export const DEFAULT_INTROSPECTION_CACHE_MS = 60_000;

/** Options of {@link IntrospectionVerifier} (config `auth.introspection`). */
export interface IntrospectionVerifierOptions {
  /** The RFC 7662 introspection endpoint of the authorization server. */
  url: string;
  /** The gateway's own client credentials at that server (sent as HTTP Basic, RFC 7662 §2.1). */
  clientId: string;
  clientSecret: string;
  /**
   * How long an active answer is reused; never past the token's `exp`. 0 asks the server on every
   * request. Default {@link DEFAULT_INTROSPECTION_CACHE_MS}.
   */
  cacheMs?: number | undefined;
  /** As `auth.jwt.toolsetsClaim`, read from the introspection response. */
  toolsetsClaim?: string | undefined;
  /** As `auth.jwt.adminClaim`, read from the introspection response. */
  adminClaim?: string | undefined;
  /** How long one introspection request may take. Default 5000 ms. */
  timeoutMs?: number | undefined;
  /** Answers remembered at most. Default 1000. */
  cacheSize?: number | undefined;
  /** The fetch used (tests). Default the global fetch. */
  fetch?: typeof fetch | undefined;
  /** The clock (tests). Default `Date.now`. */
  now?: (() => number) | undefined;
}

/**
 * Checks opaque bearer tokens with the authorization server's introspection endpoint (RFC 7662):
 * `active: true` makes an identity of `sub` (else `client_id`, the client-credentials case); an
 * inactive, expired or unknown token is `unauthorized` (`invalid_token`); a server that cannot be
 * reached or answers something else is `backend_unavailable` — the token may be fine.
 *
 * Active answers are cached for `cacheMs` but never past the token's `exp`: a revoked token keeps
 * working until its cache entry lapses, which is the price of not asking the server on every
 * request (set `cacheMs: 0` to ask every time). Inactive answers are not cached, so a token that
 * becomes valid is accepted at once.
 */
export class IntrospectionVerifier {
  private readonly cacheMs: number;
  private readonly cacheSize: number;
  private readonly fetch: typeof fetch;
  private readonly now: () => number;
  private readonly authorization: string;
  /** Token → identity and until when it may be reused (insertion order = age). */
  private readonly answers = new Map<string, { identity: AuthIdentity; until: number }>();
  /** One request per token in flight: a burst of requests with a new token asks once. */
  private readonly pending = new Map<string, Promise<AuthIdentity>>();

  constructor(private readonly options: IntrospectionVerifierOptions) {
    this.cacheMs = options.cacheMs ?? DEFAULT_INTROSPECTION_CACHE_MS;
    this.cacheSize = options.cacheSize ?? 1000;
    this.fetch = options.fetch ?? fetch;
    this.now = options.now ?? Date.now;
    // RFC 7662 §2.1 via RFC 6749 §2.3.1: both parts form-urlencoded before base64.
    const basic = `${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`;
    this.authorization = `Basic ${Buffer.from(basic).toString('base64')}`;
  }

  /** The identity of an active token; throws as the class comment says. */
  async verify(token: string): Promise<AuthIdentity> {
    const known = this.answers.get(token);
    if (known && known.until > this.now()) return known.identity;
    if (known) this.answers.delete(token);
    let inFlight = this.pending.get(token);
    if (!inFlight) {
      inFlight = this.introspect(token).finally(() => this.pending.delete(token));
      this.pending.set(token, inFlight);
    }
    return inFlight;
  }

  private async introspect(token: string): Promise<AuthIdentity> {
    const answer = await this.ask(token);
    if (answer.active !== true) throw authFailure('unauthorized', 'invalid_token', 'The token is not active');
    const exp = typeof answer.exp === 'number' ? answer.exp * 1000 : undefined;
    // Servers answer `active` for an expired token only by mistake; never accept one.
    if (exp !== undefined && exp <= this.now()) {
      throw authFailure('unauthorized', 'invalid_token', 'The token has expired');
    }
    const subject =
      typeof answer.sub === 'string' && answer.sub !== ''
        ? answer.sub
        : typeof answer.client_id === 'string' && answer.client_id !== ''
          ? answer.client_id
          : undefined;
    if (subject === undefined) {
      throw authFailure(
        'unauthorized',
        'invalid_token',
        'The active token names neither "sub" nor "client_id"',
      );
    }
    const identity: AuthIdentity = { identity: subject, method: 'introspection' };
    const { toolsetsClaim, adminClaim } = this.options;
    if (toolsetsClaim !== undefined) {
      const granted = toolsetsOf(answer, toolsetsClaim);
      if (granted !== '*') identity.toolsets = Object.freeze(granted);
    }
    if (adminClaim !== undefined && isAdminValue(claimValue(answer, adminClaim))) identity.admin = true;
    rememberClaims(identity, answer);
    this.remember(token, identity, exp);
    return identity;
  }

  private remember(token: string, identity: AuthIdentity, exp: number | undefined): void {
    if (this.cacheMs <= 0 || this.cacheSize === 0) return;
    const until = Math.min(exp ?? Number.POSITIVE_INFINITY, this.now() + this.cacheMs);
    if (this.answers.size >= this.cacheSize) {
      const oldest = this.answers.keys().next().value;
      if (oldest !== undefined) this.answers.delete(oldest);
    }
    this.answers.set(token, { identity, until });
  }

  /** The server's JSON answer for `token`. */
  private async ask(token: string): Promise<Record<string, unknown>> {
    const unavailable = (why: string, cause?: unknown) =>
      new GatewayError(
        'backend_unavailable',
        `Cannot check the token now: the introspection endpoint ${why}`,
        {
          ...(cause !== undefined ? { cause } : {}),
        },
      );
    let response: Response;
    try {
      response = await this.fetch(this.options.url, {
        method: 'POST',
        headers: {
          authorization: this.authorization,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
        // A redirect would carry the gateway's client secret elsewhere.
        redirect: 'manual',
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 5000),
      });
    } catch (error) {
      throw unavailable(`cannot be reached (${(error as Error).message})`, error);
    }
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => {});
      throw unavailable(`answered HTTP ${response.status}`);
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch (error) {
      throw unavailable('answered something other than JSON', error);
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw unavailable('answered something other than a JSON object');
    }
    return body as Record<string, unknown>;
  }
}
