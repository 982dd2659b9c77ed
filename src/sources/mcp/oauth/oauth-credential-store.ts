import type {
  OAuthClientInformationMixed,
  OAuthDiscoveryState,
  OAuthTokens,
} from '@modelcontextprotocol/client';
import type { StateStore, StateValue } from '../../../foundation/ports/state-store.js';
import type { TokenCipher } from './token-cipher.js';

/** The token set of one identity at one server, as kept. */
export interface StoredTokens {
  tokens: OAuthTokens;
  /** When the access token expires (epoch ms), from `expires_in` at the time it was received. */
  expiresAt?: number;
}

/** What `/readyz`, `doctor` and `aperture login --status` show of one token set; never a token. */
export interface TokenStatus {
  /** The gateway identity the tokens belong to; `""` for the operator's (shared) set. */
  identity: string;
  tokens: boolean;
  /** ISO time the access token expires, when known. */
  expiresAt?: string;
  /** ISO time of the last successful refresh. */
  lastRefreshAt?: string;
  /** Why the last refresh failed (cleared by the next success or login). */
  lastRefreshError?: string;
}

type RecordKind = 'client' | 'discovery' | 'tokens' | 'verifier' | 'status';

/** The state-store scope that holds every OAuth record. */
export const OAUTH_STATE_SCOPE = 'oauth';

/**
 * OAuth records of every server and identity in the state store: client registrations, discovery
 * results, token sets and PKCE verifiers encrypted with `cipher` (the store sees only ciphertext),
 * and a plain status per token set (expiry, last refresh error) that holds nothing secret, so
 * status can be shown without the key. The store is read on every access, so tokens saved by
 * `aperture login` in another process are seen by a running gateway at once.
 */
export class OAuthCredentialStore {
  /**
   * @param legacyName For a caller key (`apikey:ka`), the bare name (`ka`) its token set was kept
   * under before sets were keyed by authentication method — only for the one method that name is
   * taken to mean (see `OAuthSupport.userKey`), so an old set reaches its owner and nobody else.
   */
  constructor(
    private readonly store: StateStore,
    private readonly cipher: TokenCipher,
    private readonly legacyName: (identity: string) => string | undefined = () => undefined,
  ) {}

  client(server: string): OAuthClientInformationMixed | undefined {
    return this.read(server, 'client', '') as OAuthClientInformationMixed | undefined;
  }

  saveClient(server: string, client: OAuthClientInformationMixed): void {
    this.write(server, 'client', '', client);
  }

  discovery(server: string): OAuthDiscoveryState | undefined {
    return this.read(server, 'discovery', '') as OAuthDiscoveryState | undefined;
  }

  saveDiscovery(server: string, state: OAuthDiscoveryState): void {
    this.write(server, 'discovery', '', state);
  }

  tokens(server: string, identity: string): StoredTokens | undefined {
    const found = this.read(server, 'tokens', identity) as StoredTokens | undefined;
    return found ?? this.migrate(server, identity);
  }

  /**
   * A token set kept under the bare name of `identity` (before keys named the method) moves to
   * its key, with its status, the first time its owner needs it: nothing a user logged in with is
   * lost, and the bare record no longer exists for a caller of another method to find.
   */
  private migrate(server: string, identity: string): StoredTokens | undefined {
    const bare = identity === '' ? undefined : this.legacyName(identity);
    if (bare === undefined || bare === identity) return undefined;
    const old = this.read(server, 'tokens', bare) as StoredTokens | undefined;
    if (old === undefined) return undefined;
    this.write(server, 'tokens', identity, old);
    const status = this.status(server, bare);
    if (status !== undefined) {
      this.store.set(OAUTH_STATE_SCOPE, key(server, 'status', identity), status as unknown as StateValue);
    }
    this.store.delete(OAUTH_STATE_SCOPE, key(server, 'tokens', bare));
    this.store.delete(OAUTH_STATE_SCOPE, key(server, 'status', bare));
    return old;
  }

  /** Keeps a new token set; `refreshed` says it came from a refresh (status records when). */
  saveTokens(
    server: string,
    identity: string,
    tokens: OAuthTokens,
    refreshed: boolean,
    now = Date.now(),
  ): void {
    const expiresAt = tokens.expires_in === undefined ? undefined : now + tokens.expires_in * 1000;
    this.write(server, 'tokens', identity, {
      tokens,
      ...(expiresAt === undefined ? {} : { expiresAt }),
    } as unknown as StateValue);
    const previous = this.status(server, identity);
    this.store.set(OAUTH_STATE_SCOPE, key(server, 'status', identity), {
      ...(expiresAt === undefined ? {} : { expiresAt: new Date(expiresAt).toISOString() }),
      ...(refreshed
        ? { lastRefreshAt: new Date(now).toISOString() }
        : previous?.lastRefreshAt
          ? { lastRefreshAt: previous.lastRefreshAt }
          : {}),
    });
  }

  /** Forgets a token set (revoked, expired refresh token), keeping why in its status. */
  dropTokens(server: string, identity: string, reason?: string): void {
    this.store.delete(OAUTH_STATE_SCOPE, key(server, 'tokens', identity));
    if (reason !== undefined) this.refreshFailed(server, identity, reason);
  }

  /** Records a failed refresh; the tokens stay (a network error does not end a login). */
  refreshFailed(server: string, identity: string, reason: string): void {
    const previous = this.status(server, identity) ?? {};
    this.store.set(OAUTH_STATE_SCOPE, key(server, 'status', identity), {
      ...previous,
      lastRefreshError: reason,
    });
  }

  verifier(server: string, identity: string): string | undefined {
    return this.read(server, 'verifier', identity) as string | undefined;
  }

  saveVerifier(server: string, identity: string, verifier: string): void {
    this.write(server, 'verifier', identity, verifier);
  }

  /** Drops the client registration and discovery (the authorization server forgot the client). */
  forgetClient(server: string): void {
    this.store.delete(OAUTH_STATE_SCOPE, key(server, 'client', ''));
    this.store.delete(OAUTH_STATE_SCOPE, key(server, 'discovery', ''));
  }

  /** Every token set of `server` (and the operator's even when it has none), identities ascending. */
  statuses(server: string): TokenStatus[] {
    const identities = new Set<string>(['']);
    for (const [stored] of this.store.entries(OAUTH_STATE_SCOPE)) {
      const parsed = parseKey(stored);
      if (parsed?.server === server && (parsed.kind === 'tokens' || parsed.kind === 'status')) {
        identities.add(parsed.identity);
      }
    }
    return [...identities].sort().map((identity) => {
      const status = this.status(server, identity);
      const present = this.store.get(OAUTH_STATE_SCOPE, key(server, 'tokens', identity)) !== undefined;
      return {
        identity,
        tokens: present,
        ...(present && status?.expiresAt ? { expiresAt: status.expiresAt } : {}),
        ...(status?.lastRefreshAt ? { lastRefreshAt: status.lastRefreshAt } : {}),
        ...(status?.lastRefreshError ? { lastRefreshError: status.lastRefreshError } : {}),
      };
    });
  }

  private status(server: string, identity: string): Omit<TokenStatus, 'identity' | 'tokens'> | undefined {
    return this.store.get(OAUTH_STATE_SCOPE, key(server, 'status', identity)) as
      | Omit<TokenStatus, 'identity' | 'tokens'>
      | undefined;
  }

  private read(server: string, kind: RecordKind, identity: string): unknown {
    const sealed = this.store.get(OAUTH_STATE_SCOPE, key(server, kind, identity));
    return typeof sealed === 'string' ? this.cipher.open(sealed) : undefined;
  }

  private write(server: string, kind: RecordKind, identity: string, value: unknown): void {
    this.store.set(OAUTH_STATE_SCOPE, key(server, kind, identity), this.cipher.seal(value));
  }
}

/** One key per record: JSON keeps any server or identity name (slashes, spaces) unambiguous. */
function key(server: string, kind: RecordKind, identity: string): string {
  return JSON.stringify([server, kind, identity]);
}

function parseKey(stored: string): { server: string; kind: RecordKind; identity: string } | undefined {
  try {
    const [server, kind, identity] = JSON.parse(stored) as [string, RecordKind, string];
    return { server, kind, identity };
  } catch {
    return undefined;
  }
}
