import type { ApertureConfig, ServerConfig } from '../config/config-schema.js';
import type { Logger } from '../foundation/logger.js';
import type { RunMiddleware } from '../foundation/run-middleware.js';
import type { StateStore } from '../foundation/state-store.js';
import {
  GatewayOAuthProvider,
  type GatewayOAuthProviderOptions,
} from '../sources/mcp/oauth/gateway-oauth-provider.js';
import { OAuthCredentialStore, type TokenStatus } from '../sources/mcp/oauth/oauth-credential-store.js';
import { currentIdentity, runAsIdentity } from '../sources/mcp/oauth/oauth-identity.js';
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

  /** True when some server uses OAuth. */
  get enabled(): boolean {
    return oauthServers(this.config).length > 0;
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
    const oauth = entry.oauth;
    // The store is read lazily: providers are made before the gateway opens its state.
    const self = this;
    return new GatewayOAuthProvider({
      server: name,
      url: entry.url,
      settings: oauth,
      get store() {
        return self.store;
      },
      identity: () => (oauth.perUser ? (currentIdentity() ?? '') : ''),
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
      return runAsIdentity(caller.identity, next);
    };
  }

  /** Token status of every OAuth server (no token ever): for `/readyz`, `doctor`, `login --status`. */
  statuses(): Record<string, TokenStatus[]> {
    return Object.fromEntries(oauthServers(this.config).map(([name]) => [name, this.store.statuses(name)]));
  }
}
