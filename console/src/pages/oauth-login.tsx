import { useState } from 'preact/hooks';
import { api, errorText, type LoginStart, type TokenStatus } from '../api.js';

/** A token set in words: present or not, its expiry, the last refresh and its error. */
export function tokenStatusText(set: TokenStatus): string {
  const parts = [set.tokens ? 'token present' : 'no token'];
  if (set.expiresAt) parts.push(`expires ${set.expiresAt}`);
  if (set.lastRefreshAt) parts.push(`last refresh ${set.lastRefreshAt}`);
  if (set.lastRefreshError) parts.push(`last refresh failed: ${set.lastRefreshError}`);
  return parts.join(', ');
}

/**
 * The OAuth part of a server's row: each token set's status and a "Log in" button. The gateway
 * answers with the authorization server's URL (for a per-user server, the caller's own login; for
 * a shared one, an admin's for everyone), which the user opens; the login completes at the
 * gateway's `/oauth/callback`. `onStarted` is told so the page can watch for the new token.
 */
export function OAuthLogin(props: { name: string; sets: TokenStatus[]; onStarted: () => void }) {
  const [answer, setAnswer] = useState<{ url?: string; text: string } | undefined>();
  const start = async () => {
    setAnswer({ text: 'Starting the login…' });
    try {
      const started = await api<LoginStart>(`/api/admin/sources/${encodeURIComponent(props.name)}/login`, {
        method: 'POST',
      });
      setAnswer(
        'loginUrl' in started
          ? { url: started.loginUrl, text: 'Open the login page, log in, then come back here:' }
          : { text: 'Authorized: no login was needed.' },
      );
      props.onStarted();
    } catch (error) {
      setAnswer({ text: errorText(error) });
    }
  };
  return (
    <div class="oauth" data-testid={`oauth-${props.name}`}>
      <ul>
        {props.sets.length === 0 ? (
          <li>no token set yet</li>
        ) : (
          props.sets.map((set) => (
            <li key={set.identity}>
              {set.identity === '' ? 'shared' : set.identity}: {tokenStatusText(set)}
            </li>
          ))
        )}
      </ul>
      <button type="button" class="secondary small" onClick={start}>
        Log in to {props.name}
      </button>
      {answer && (
        <p aria-live="polite" data-testid={`oauth-answer-${props.name}`}>
          {answer.text}{' '}
          {answer.url && (
            <a href={answer.url} target="_blank" rel="noopener noreferrer">
              Log in at the authorization server
            </a>
          )}
        </p>
      )}
    </div>
  );
}
