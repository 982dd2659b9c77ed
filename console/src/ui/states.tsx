import type { ComponentChildren } from 'preact';
import type { ApiError } from '../api.js';
import { Icon, type IconName } from './icons.js';

/** A list with nothing in it: an icon, what is missing, and what to do about it. */
export function EmptyState(props: {
  title: string;
  children?: ComponentChildren;
  icon?: IconName;
  testId?: string;
}) {
  return (
    <div class="empty" data-testid={props.testId ?? 'empty'}>
      <Icon name={props.icon ?? 'inbox'} size={28} />
      <p class="empty-title">{props.title}</p>
      {props.children && <p class="empty-text">{props.children}</p>}
    </div>
  );
}

/** Waiting for the gateway: a spinner and what is being read. */
export function LoadingState(props: { what: string }) {
  return (
    <p class="loading" role="status">
      <span class="spinner" aria-hidden="true" />
      {props.what}
    </p>
  );
}

/**
 * A failed read as a state of its own: 403 is "needs admin" (the page spans every toolset and
 * this identity may not), 401 a credential that no longer works, anything else the gateway's code
 * and message with a way to try again.
 */
export function ErrorState(props: { failure: ApiError; what: string; onRetry?: () => void }) {
  const { failure } = props;
  if (failure.status === 403)
    return (
      <div class="state state-admin" role="alert" data-testid="needs-admin">
        <Icon name="lock" size={28} />
        <div>
          <p class="state-title">Needs admin</p>
          <p>
            {props.what} spans every toolset, so only an admin identity may see it. Log in with an admin key
            or token to open it.
          </p>
          <p class="muted">
            <code>
              {failure.code}: {failure.message}
            </code>
          </p>
        </div>
      </div>
    );
  return (
    <div class="state state-error" role="alert" data-testid="load-error">
      <Icon name="alert" size={28} />
      <div>
        <p class="state-title">
          {failure.status === 401
            ? 'Your credential is no longer accepted'
            : `Could not load ${props.what.toLowerCase()}`}
        </p>
        <p>
          <code>
            {failure.code}: {failure.message}
          </code>
        </p>
        {props.onRetry && (
          <button type="button" class="secondary" onClick={props.onRetry}>
            <Icon name="refresh" /> Try again
          </button>
        )}
      </div>
    </div>
  );
}
