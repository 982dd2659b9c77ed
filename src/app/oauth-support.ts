import { randomBytes } from 'node:crypto';
import type { ApertureConfig, ServerConfig } from '../config/config-schema.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import type { Logger } from '../foundation/ports/logger.js';
import type { RunMiddleware } from '../foundation/ports/run-middleware.js';
import type { StateStore } from '../foundation/ports/state-store.js';
import { type AuthMethod, callerKey } from '../foundation/ports/tool-backend.js';
import { clientSdk } from '../sources/mcp/client-sdk.js';
import {
  GatewayOAuthProvider,
  type GatewayOAuthProviderOptions,
} from '../sources/mcp/oauth/gateway-oauth-provider.js';
import { globalResponseFetch } from '../sources/mcp/oauth/global-response-fetch.js';
import { OAuthCredentialStore, type TokenStatus } from '../sources/mcp/oauth/oauth-credential-store.js';
import { currentIdentity, runAsIdentity } from '../sources/mcp/oauth/oauth-identity.js';
import { CALLBACK_PATH } from '../sources/mcp/oauth/oauth-login.js';
import { createTokenCipher } from '../sources/mcp/oauth/token-cipher.js';

/** A remote server entry that has an `oauth` block. */
export type OAuthServerEntry = Extract<ServerConfig, { kind: 'remote' }> & {
  oauth: NonNullable<Extract<ServerConfig, { kind: 'remote' }>['oauth']>;
};

/** The OAuth servers of a config, enabled or not, by name. */
export function oauthServers(config: ApertureConfig): [string, OAuthServerEntry][] {
  return Object.entries(config.servers).filter(
    (pair): pair is [string, OAuthServerEntry] => pair[1].kind === 'remote' && pair[1].oauth !== undefined,
  );
}

/**
 * The OAuth side of a gateway: the encrypted credential store (on the state store, bound once
 * the gateway has opened it), one provider per OAuth server, and the middleware that runs a
 * per-user server's calls as their caller.
 */
export class OAuthSupport {
  private state: StateStore | undefined;
  private credentials: OAuthCredentialStore | undefined;
  private readonly perUserSources: ReadonlySet<string>;
  /** The serving providers, one per server (their logins in progress live in them). */
  private readonly serving = new Map<string, GatewayOAuthProvider>();
  /**
   * Gateway-hosted logins in progress, by `state`; a login started on request (`startLogin`)
   * keeps its own provider, whose redirect and verifier the code exchange must repeat.
   */
  private readonly logins = new Map<
    string,
    { server: string; identity: string; at: number; provider?: GatewayOAuthProvider }
  >();
  private callbackUrl: string | undefined;
  /** Told of each login completed at the callback (the gateway reconnects a shared server). */
  onLoggedIn: ((server: string, identity: string) => void) | undefined;

  constructor(
    private readonly config: ApertureConfig,
    private readonly log: Logger,
  ) {
    this.perUserSources = new Set(
      oauthServers(config)
        .filter(([, entry]) => entry.oauth.perUser)
        .map(([name]) => `mcp:${name}`),
    );
  }

  /** True when some server keeps tokens per user. */
  get perUser(): boolean {
    return this.perUserSources.size > 0;
  }

  /** True when some server uses OAuth. */
  get enabled(): boolean {
    return oauthServers(this.config).length > 0;
  }

  /**
   * The identity a per-user token set is kept under, for the caller who proved `identity` by
   * `method`: an API key's bare name (where every set was kept before sets told methods apart, so
   * no stored set moves), `apikey:NAME` for a key whose name has a colon, `jwt:SUB` for a JWT
   * subject. No two callers share one: a bare name has no colon, every other form a method prefix.
   */
  tokenSetOwner(identity: string, method: AuthMethod): string {
    if (method === 'jwt') return callerKey({ identity, authMethod: 'jwt' });
    return identity.includes(':') ? callerKey({ identity, authMethod: 'api_key' }) : identity;
  }

  /**
   * The token set a person means by `aperture login --user NAME`: the API key of that name when
   * one is configured (a name the operator chose), else `apikey:…` / `jwt:…` as written, else the
   * JWT subject NAME.
   */
  userKey(name: string): string {
    if (name === '') return '';
    if (this.config.auth.apiKeys.some((entry) => entry.name === name))
      return this.tokenSetOwner(name, 'api_key');
    if (name.startsWith('apikey:')) return this.tokenSetOwner(name.slice('apikey:'.length), 'api_key');
    if (name.startsWith('jwt:')) return name;
    return this.tokenSetOwner(name, 'jwt');
  }

  /**
   * The bare name a JWT subject's set was kept under before sets told methods apart (`jwt:ka` ←
   * `ka`), when no API key has that name: an API key's set stays where it was, so a subject never
   * inherits a key's tokens.
   */
  private legacyName(owner: string): string | undefined {
    if (!owner.startsWith('jwt:')) return undefined;
    const bare = owner.slice('jwt:'.length);
    return this.userKey(bare) === owner ? bare : undefined;
  }

  /** Binds the state store the tokens live in (before any server connects). */
  bind(state: StateStore): void {
    this.state = state;
  }

  /** The credential store; throws until `bind`. */
  get store(): OAuthCredentialStore {
    if (!this.credentials) {
      if (!this.state) throw new Error('OAuth state used before the state store was opened');
      // The schema requires tokenKey whenever a server has oauth.
      this.credentials = new OAuthCredentialStore(
        this.state,
        createTokenCipher(this.config.state.tokenKey ?? ''),
        (identity) => this.legacyName(identity),
      );
    }
    return this.credentials;
  }

  /**
   * The provider of server `name` for a serving gateway: the operator's tokens, or in per-user
   * mode the calling identity's (`runAsIdentity`) — never the operator's for a user's call.
   */
  provider(name: string, extra?: Partial<GatewayOAuthProviderOptions>): GatewayOAuthProvider | undefined {
    const entry = this.config.servers[name];
    if (entry?.kind !== 'remote' || !entry.oauth) return undefined;
    if (!extra) {
      const made = this.serving.get(name) ?? this.make(name, entry.url, entry.oauth);
      this.serving.set(name, made);
      return made;
    }
    return this.make(name, entry.url, entry.oauth, extra);
  }

  private make(
    name: string,
    url: string,
    oauth: OAuthServerEntry['oauth'],
    extra?: Partial<GatewayOAuthProviderOptions>,
  ): GatewayOAuthProvider {
    // The store is read lazily: providers are made before the gateway opens its state.
    const self = this;
    return new GatewayOAuthProvider({
      server: name,
      url,
      settings: oauth,
      get store() {
        return self.store;
      },
      identity: () => (oauth.perUser ? (currentIdentity() ?? '') : ''),
      gatewayLogin: {
        redirectUrl: () => this.callbackUrl,
        started: (server, identity, state) => {
          this.logins.set(state, { server, identity, at: Date.now() });
        },
      },
      log: this.log.child({ server: name, component: 'oauth' }),
      ...extra,
    });
  }

  /**
   * Runs calls to per-user servers as the authenticated caller, so their requests carry the
   * caller's token. Unauthenticated callers (stdio, the CLI) use the operator's tokens.
   */
  middleware(): RunMiddleware | undefined {
    if (this.perUserSources.size === 0) return undefined;
    return (call, next) => {
      const { caller } = call.ctx;
      if (!this.perUserSources.has(call.tool.origin.sourceId) || caller.authMethod === undefined)
        return next();
      return runAsIdentity(this.tokenSetOwner(caller.identity, caller.authMethod), next);
    };
  }

  /**
   * Where the gateway's HTTP listener takes login answers (`/oauth/callback`): from then on a
   * per-user caller who needs a login gets a URL to open in `auth_required`'s details. Only on
   * loopback, the redirect an authorization server accepts from a native client on any port.
   */
  listening(baseUrl: string): void {
    const host = new URL(baseUrl).hostname;
    if (host === '127.0.0.1' || host === 'localhost' || host === '[::1]') {
      this.callbackUrl = `${baseUrl}${CALLBACK_PATH}`;
    }
  }

  /** Whether server `name` keeps tokens per user; undefined when it has no `oauth` block. */
  perUserServer(name: string): boolean | undefined {
    const entry = this.config.servers[name];
    return entry?.kind === 'remote' && entry.oauth ? entry.oauth.perUser : undefined;
  }

  /**
   * Starts a login on request (the console's "Log in" button), completed by the gateway itself at
   * `/oauth/callback` like the per-user logins it hands out in `auth_required`: `identity` is the
   * user whose token set it fills, `''` the shared one. Answers the authorization URL to open, or
   * `authorized` when no person was needed (a refresh token still worked, a client-credentials grant).
   */
  async startLogin(name: string, identity: string): Promise<{ loginUrl: string } | { authorized: true }> {
    const entry = this.config.servers[name];
    if (entry?.kind !== 'remote' || !entry.oauth) {
      throw new GatewayError('not_found', `No server "${name}" logs in with OAuth`);
    }
    const machine = entry.oauth.grant === 'client_credentials';
    const redirectUrl = this.callbackUrl;
    if (!machine && redirectUrl === undefined) {
      // The callback is served on loopback binds only (the redirect an authorization server
      // accepts from a native client): elsewhere the login runs where a browser is.
      throw new GatewayError(
        'invalid_request',
        `This gateway completes OAuth logins only on a loopback bind; run: aperture login ${name}${identity ? ` --user ${identity}` : ''}`,
      );
    }
    const state = randomBytes(24).toString('base64url');
    let loginUrl: string | undefined;
    const provider = this.make(name, entry.url, entry.oauth, {
      identity: () => identity,
      ...(machine || redirectUrl === undefined
        ? {}
        : {
            login: {
              redirectUrl,
              state,
              onAuthorizationUrl: (url: URL) => {
                loginUrl = url.toString();
              },
            },
          }),
    });
    try {
      const { auth } = await clientSdk();
      await auth(provider, { serverUrl: new URL(entry.url), fetchFn: globalResponseFetch });
    } catch (error) {
      if (error instanceof GatewayError) throw error;
      // Discovery, registration or the token request failed: the authorization server's side.
      throw new GatewayError(
        'backend_unavailable',
        `Cannot start the login to "${name}": ${(error as Error).message}`,
        { cause: error },
      );
    }
    if (loginUrl === undefined) {
      this.log.info({ server: name, identity }, 'OAuth login needed no person');
      return { authorized: true };
    }
    // Logins never completed would pile up with each click: those past their ten minutes go.
    for (const [key, login] of this.logins) {
      if (Date.now() - login.at > 10 * 60_000) this.logins.delete(key);
    }
    this.logins.set(state, { server: name, identity, at: Date.now(), provider });
    return { loginUrl };
  }

  /**
   * Completes a login the gateway handed out: `state` names the server and identity, the code is
   * exchanged (PKCE) and the tokens kept for that identity. Unknown or stale states are refused.
   */
  async completeLogin(url: URL): Promise<{ status: 200 | 400; text: string }> {
    const state = url.searchParams.get('state') ?? '';
    const login = this.logins.get(state);
    if (!login || Date.now() - login.at > 10 * 60_000) {
      return {
        status: 400,
        text: 'This login link is unknown or has expired; call the tool again for a new one.',
      };
    }
    this.logins.delete(state);
    const provider = login.provider ?? this.provider(login.server);
    const code = url.searchParams.get('code');
    const entry = this.config.servers[login.server];
    if (!provider || entry?.kind !== 'remote') return { status: 400, text: 'Unknown server.' };
    return runAsIdentity(login.identity, async () => {
      provider.endGatewayLogin();
      if (code === null) {
        const reason =
          url.searchParams.get('error_description') ?? url.searchParams.get('error') ?? 'no code';
        return { status: 400 as const, text: `Login failed: ${reason}` };
      }
      try {
        const iss = url.searchParams.get('iss');
        const { auth } = await clientSdk();
        await auth(provider, {
          serverUrl: new URL(entry.url),
          authorizationCode: code,
          // The issuer is checked against the one discovered (RFC 9207), so a mix-up is refused.
          ...(iss === null ? {} : { iss }),
          fetchFn: globalResponseFetch,
        });
      } catch (error) {
        this.log.warn(
          { server: login.server, identity: login.identity, err: (error as Error).message },
          'OAuth login failed',
        );
        return { status: 400 as const, text: 'Login failed: the authorization server refused the code.' };
      }
      this.log.info({ server: login.server, identity: login.identity }, 'OAuth login completed');
      this.onLoggedIn?.(login.server, login.identity);
      return {
        status: 200 as const,
        text: login.identity
          ? `Logged in to ${login.server} as ${login.identity}. You can close this window.`
          : `Logged in to ${login.server} (the shared token set). You can close this window.`,
      };
    });
  }

  /** Token status of every OAuth server (no token ever): for `/readyz`, `doctor`, `login --status`. */
  statuses(): Record<string, TokenStatus[]> {
    return Object.fromEntries(oauthServers(this.config).map(([name]) => [name, this.store.statuses(name)]));
  }
}
