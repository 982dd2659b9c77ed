import { describe, expect, it } from 'vitest';
import { MemoryStateStore } from '../../../foundation/ports/memory-state-store.js';
import { OAUTH_STATE_SCOPE, OAuthCredentialStore } from './oauth-credential-store.js';
import { createTokenCipher } from './token-cipher.js';

function setup() {
  const state = new MemoryStateStore();
  return { state, store: new OAuthCredentialStore(state, createTokenCipher('k'.repeat(32))) };
}

describe('OAuthCredentialStore', () => {
  it('keeps token sets apart per server and identity, sealed in the state store', () => {
    const { state, store } = setup();
    store.saveTokens(
      'a/b',
      'alice',
      { access_token: 'AT-alice', token_type: 'Bearer', expires_in: 60 },
      false,
      0,
    );
    store.saveTokens('a/b', 'bob', { access_token: 'AT-bob', token_type: 'Bearer' }, false, 0);
    store.saveTokens('other', 'alice', { access_token: 'AT-other', token_type: 'Bearer' }, false, 0);
    expect(store.tokens('a/b', 'alice')).toEqual({
      tokens: { access_token: 'AT-alice', token_type: 'Bearer', expires_in: 60 },
      expiresAt: 60_000,
    });
    expect(store.tokens('a/b', 'bob')?.tokens.access_token).toBe('AT-bob');
    expect(store.tokens('a/b', '')).toBeUndefined();
    expect(JSON.stringify(state.entries(OAUTH_STATE_SCOPE))).not.toContain('AT-');
  });

  it('reports status per identity without tokens: expiry, last refresh, last refresh error', () => {
    const { store } = setup();
    store.saveTokens('s', 'alice', { access_token: 'x', token_type: 'Bearer', expires_in: 10 }, false, 0);
    store.saveTokens('s', 'alice', { access_token: 'y', token_type: 'Bearer', expires_in: 10 }, true, 5_000);
    store.refreshFailed('s', 'bob', 'network down');
    store.dropTokens('s', 'carol', 'refresh refused: invalid_grant');
    expect(store.statuses('s')).toEqual([
      { identity: '', tokens: false },
      {
        identity: 'alice',
        tokens: true,
        expiresAt: new Date(15_000).toISOString(),
        lastRefreshAt: new Date(5_000).toISOString(),
      },
      { identity: 'bob', tokens: false, lastRefreshError: 'network down' },
      { identity: 'carol', tokens: false, lastRefreshError: 'refresh refused: invalid_grant' },
    ]);
    // A new token set (a login or refresh) clears the error.
    store.saveTokens('s', 'bob', { access_token: 'z', token_type: 'Bearer' }, false, 0);
    expect(store.statuses('s').find((s) => s.identity === 'bob')).toEqual({ identity: 'bob', tokens: true });
  });

  it('forgets a client registration with its discovery', () => {
    const { store } = setup();
    store.saveClient('s', { client_id: 'c' });
    store.saveDiscovery('s', { authorizationServerUrl: 'http://127.0.0.1:1' });
    store.forgetClient('s');
    expect(store.client('s')).toBeUndefined();
    expect(store.discovery('s')).toBeUndefined();
  });
});
