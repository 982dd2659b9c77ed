import { randomBytes } from 'node:crypto';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens,
} from '@modelcontextprotocol/client';
import { GatewayError } from '../../../foundation/model/gateway-error.js';
import type { Logger } from '../../../foundation/ports/logger.js';
import { type ClientSdk, clientSdk } from '../client-sdk.js';
import { globalResponseFetch } from './global-response-fetch.js';
import type { OAuthCredentialStore } from './oauth-credential-store.js';

/** The `oauth` settings of one server (the config's `servers.<name>.oauth`, secrets resolved). */
export interface OAuthSettings {
  grant: 'authorization_code' | 'client_credentials';
  clientId?: string | undefined;
  clientSecret?: string | undefined;
  scopes?: readonly string[] | undefined;
  perUser: boolean;
}

export interface GatewayOAuthProviderOptions {
  /** The server's name (the key in `servers`): names its records and the login command. */
  server: string;
  /** The MCP endpoint (the protected resource). */
  url: string;
  settings: OAuthSettings;
  store: OAuthCredentialStore;
  /** Whose token set to use now: `""` the operator's, else a gateway identity's. */
  identity: () => string;
  /**
   * Interactive login (`aperture login`): the loopback redirect and where the authorization URL
   * goes. Absent (serving): a login that is needed is an `auth_required` error instead.
   */
  login?: { redirectUrl: string; onAuthorizationUrl: (url: URL) => void; state: string };
  /**
   * A serving gateway's own login page for per-user identities (`/oauth/callback` on its HTTP
   * listener): `auth_required` then carries a login URL the user opens. Absent, or before the
   * gateway listens: the error names the login command only.
   */
  gatewayLogin?: GatewayLoginHooks;
  log: Logger;
  /** Refresh this long before expiry at most (default 60 s; at most half the token's lifetime). */
  refreshAheadMs?: number;
  now?: () => number;
}

/** What a serving gateway offers for logins it completes itself. */
export interface GatewayLoginHooks {
  /** The gateway's callback URL, once it listens. */
  redirectUrl(): string | undefined;
  /** Remembers that `state` is the login of `identity` at `server` (for the callback). */
  started(server: string, identity: string, state: string): void;
}

/** How long a login URL handed out in an error stays the one to use. */
const LOGIN_URL_TTL_MS = 10 * 60_000;

/** The redirect a serving gateway names when it must (it never completes a login itself). */
const LOOPBACK_REDIRECT = 'http://127.0.0.1/oauth/callback';

/**
 * The MCP SDK's `OAuthClientProvider` for one downstream server, over the encrypted
 * `OAuthCredentialStore`. The SDK's `auth()` does discovery (RFC 9728, RFC 8414), dynamic
 * registration (RFC 7591), PKCE, the `resource` parameter (RFC 8707) and the refresh on a 401;
 * this class adds what a long-running gateway needs: tokens refreshed *before* they expire (one
 * refresh at a time per identity, so a rotating refresh token is never spent twice), one token set
 * per identity in per-user mode, and an `auth_required` error naming the login command wherever
 * the SDK would send a browser to the authorization server.
 */
export class GatewayOAuthProvider implements OAuthClientProvider {
  private readonly refreshing = new Map<string, Promise<OAuthTokens | undefined>>();
  /** Per identity: the login URL handed out, so every error until it is used names the same one. */
  private readonly pending = new Map<string, { state: string; url?: string; at: number }>();
  private readonly now: () => number;

  constructor(private readonly options: GatewayOAuthProviderOptions) {
    this.now = options.now ?? Date.now;
  }

  get redirectUrl(): string | undefined {
    // No redirect is what tells the SDK to run a non-interactive grant.
    if (this.options.settings.grant === 'client_credentials') return undefined;
    return this.options.login?.redirectUrl ?? this.gatewayRedirect() ?? LOOPBACK_REDIRECT;
  }

  /** The gateway's own callback, for a per-user identity's login while it serves HTTP. */
  private gatewayRedirect(): string | undefined {
    if (this.options.login || !this.options.settings.perUser || this.options.identity() === '')
      return undefined;
    return this.options.gatewayLogin?.redirectUrl();
  }

  /** The login of the current identity in progress through the gateway, while its URL is fresh. */
  private freshPending(): { state: string; url?: string; at: number } | undefined {
    const pending = this.pending.get(this.options.identity());
    return pending && this.now() - pending.at < LOGIN_URL_TTL_MS ? pending : undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    const { settings } = this.options;
    const machine = settings.grant === 'client_credentials';
    return {
      client_name: 'Aperture',
      redirect_uris: machine ? [] : [this.redirectUrl ?? LOOPBACK_REDIRECT],
      grant_types: machine ? ['client_credentials'] : ['authorization_code', 'refresh_token'],
      response_types: machine ? [] : ['code'],
      token_endpoint_auth_method: settings.clientSecret ? 'client_secret_basic' : 'none',
      ...(settings.scopes?.length ? { scope: settings.scopes.join(' ') } : {}),
      // RFC 8252: a native app's loopback redirect may use any port (the login picks a free one).
      application_type: 'native',
    } as OAuthClientMetadata;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const { settings, server, store } = this.options;
    if (settings.clientId !== undefined) {
      return {
        client_id: settings.clientId,
        ...(settings.clientSecret === undefined ? {} : { client_secret: settings.clientSecret }),
      };
    }
    const stored = store.client(server);
    // Registering happens at login, never in the background of a serving gateway.
    if (!stored && !this.options.login) throw this.authRequired('no client is registered yet');
    return stored;
  }

  saveClientInformation(client: OAuthClientInformationMixed): void {
    if (this.options.settings.clientId !== undefined) return;
    this.options.store.saveClient(this.options.server, client);
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    const identity = this.options.identity();
    const stored = this.options.store.tokens(this.options.server, identity);
    if (!stored) return undefined;
    if (stored.expiresAt === undefined || !this.dueForRefresh(stored.expiresAt, stored.tokens)) {
      return stored.tokens;
    }
    let refresh = this.refreshing.get(identity);
    if (!refresh) {
      refresh = this.refreshAhead(identity, stored.tokens, stored.expiresAt).finally(() =>
        this.refreshing.delete(identity),
      );
      this.refreshing.set(identity, refresh);
    }
    return refresh;
  }

  saveTokens(tokens: OAuthTokens): void {
    const identity = this.options.identity();
    const had = this.options.store.tokens(this.options.server, identity) !== undefined;
    this.options.store.saveTokens(
      this.options.server,
      identity,
      tokens,
      had && !this.options.login,
      this.now(),
    );
  }

  redirectToAuthorization(url: URL): void {
    if (this.options.login) {
      this.options.login.onAuthorizationUrl(url);
      return;
    }
    const pending = this.gatewayRedirect() ? this.freshPending() : undefined;
    if (pending) {
      pending.url ??= url.toString();
      this.options.gatewayLogin?.started(this.options.server, this.options.identity(), pending.state);
      throw this.authRequired('no valid token', pending.url);
    }
    throw this.authRequired('no valid token');
  }

  state(): string {
    if (this.options.login) return this.options.login.state;
    if (!this.gatewayRedirect()) return '';
    const pending = this.freshPending();
    if (pending) return pending.state;
    const state = randomBytes(24).toString('base64url');
    this.pending.set(this.options.identity(), { state, at: this.now() });
    return state;
  }

  saveCodeVerifier(verifier: string): void {
    // A serving connection with no login of its own never completes an authorization: the
    // verifier it would keep would overwrite that of a login in progress (the console's or the
    // CLI's) for the same server and identity, and that login's code would then be refused.
    if (!this.options.login && !this.gatewayRedirect()) return;
    // The URL already handed out carries the challenge of the verifier kept: keep that one.
    const pending = this.gatewayRedirect() ? this.freshPending() : undefined;
    if (pending?.url !== undefined) return;
    this.options.store.saveVerifier(this.options.server, this.options.identity(), verifier);
  }

  codeVerifier(): string {
    const verifier = this.options.store.verifier(this.options.server, this.options.identity());
    if (verifier === undefined) throw new GatewayError('invalid_request', 'no login is in progress');
    return verifier;
  }

  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    if (this.options.settings.grant !== 'client_credentials') return undefined;
    return new URLSearchParams({ grant_type: 'client_credentials', ...(scope ? { scope } : {}) });
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.options.store.saveDiscovery(this.options.server, state);
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.options.store.discovery(this.options.server);
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    const { server, store } = this.options;
    const identity = this.options.identity();
    if (scope === 'all' || scope === 'client' || scope === 'discovery') {
      if (this.options.settings.clientId === undefined || scope === 'discovery') store.forgetClient(server);
    }
    if (scope === 'all' || scope === 'tokens') {
      store.dropTokens(
        server,
        identity,
        'refresh refused: the authorization server refused the refresh token',
      );
    }
  }

  /** `auth_required` for the current identity, naming the command that logs it in. */
  authRequired(reason: string, loginUrl?: string): GatewayError {
    const identity = this.options.identity();
    const login = `aperture login ${this.options.server}${identity ? ` --user ${identity}` : ''}`;
    return new GatewayError(
      'auth_required',
      `server "${this.options.server}" needs a login${identity ? ` for "${identity}"` : ''} (${reason}); ${loginUrl ? 'open details.loginUrl or ' : ''}run: ${login}`,
      {
        details: {
          server: this.options.server,
          login,
          ...(identity ? { identity } : {}),
          ...(loginUrl ? { loginUrl } : {}),
        },
      },
    );
  }

  /** Forgets the gateway login of the current identity (completed or failed). */
  endGatewayLogin(): void {
    this.pending.delete(this.options.identity());
  }

  private dueForRefresh(expiresAt: number, tokens: OAuthTokens): boolean {
    const lifetimeMs = (tokens.expires_in ?? 0) * 1000;
    const aheadMs = Math.min(this.options.refreshAheadMs ?? 60_000, lifetimeMs / 2);
    return expiresAt - this.now() <= aheadMs;
  }

  /**
   * Gets a fresh token before the current one expires. A refused refresh token (revoked,
   * expired) ends the login: the tokens are dropped and `auth_required` says what to run. Any
   * other failure (the authorization server is down) is recorded and the current token used while
   * it lasts; the server's 401 then has the SDK try again.
   */
  private async refreshAhead(
    identity: string,
    current: OAuthTokens,
    expiresAt: number,
  ): Promise<OAuthTokens | undefined> {
    const { server, store, log } = this.options;
    const sdk = await clientSdk();
    try {
      if (this.options.settings.grant === 'client_credentials') {
        await sdk.auth(this, { serverUrl: this.options.url, fetchFn: globalResponseFetch });
      } else {
        await this.refreshWith(identity, current, sdk);
      }
      return store.tokens(server, identity)?.tokens;
    } catch (error) {
      if (error instanceof GatewayError) throw error;
      const reason = failureReason(error, sdk);
      if (error instanceof sdk.OAuthError && !isTransient(error.code, sdk)) {
        // Someone else (another process, a concurrent 401) may have rotated the token meanwhile.
        const now = store.tokens(server, identity);
        if (now && now.tokens.refresh_token !== current.refresh_token) return now.tokens;
        store.dropTokens(server, identity, `refresh refused: ${reason}`);
        log.warn(
          { identity: identity || undefined, err: reason },
          'OAuth refresh refused; a new login is needed',
        );
        throw this.authRequired('the refresh token was refused');
      }
      store.refreshFailed(server, identity, reason);
      log.warn({ identity: identity || undefined, err: reason }, 'OAuth refresh failed; will try again');
      return expiresAt > this.now() ? current : undefined;
    }
  }

  private async refreshWith(identity: string, current: OAuthTokens, sdk: ClientSdk): Promise<void> {
    const { server, store } = this.options;
    const discovery = store.discovery(server);
    const client = this.clientInformation();
    if (!current.refresh_token || !discovery?.authorizationServerMetadata || !client) {
      // Nothing to refresh with: the server's 401 will have the SDK start over (auth_required).
      return;
    }
    const resource = discovery.resourceMetadata?.resource;
    const tokens = await sdk.refreshAuthorization(discovery.authorizationServerUrl, {
      metadata: discovery.authorizationServerMetadata,
      clientInformation: client,
      refreshToken: current.refresh_token,
      ...(resource ? { resource: new URL(resource) } : {}),
      fetchFn: globalResponseFetch,
    });
    // Stamped like the SDK stamps what it saves, so its issuer check accepts them.
    store.saveTokens(
      server,
      identity,
      { ...tokens, issuer: String(discovery.authorizationServerUrl) } as OAuthTokens,
      true,
      this.now(),
    );
  }
}

/** An OAuth failure in words: the error code (`invalid_grant`) and its description, if any. */
function failureReason(error: unknown, sdk: ClientSdk): string {
  const message = (error as Error)?.message ?? String(error);
  if (!(error instanceof sdk.OAuthError)) return message || String(error);
  return message ? `${error.code}: ${message}` : error.code;
}

/** Refusals that say nothing about the refresh token: the refresh is tried again later. */
function isTransient(code: string, sdk: ClientSdk): boolean {
  return code === sdk.OAuthErrorCode.ServerError || code === sdk.OAuthErrorCode.TemporarilyUnavailable;
}
