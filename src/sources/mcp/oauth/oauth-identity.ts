import { AsyncLocalStorage } from 'node:async_hooks';

/** The identity whose token set a downstream request carries, while a call runs. */
interface CallIdentity {
  readonly identity: string;
  /** False once the call has settled: work it left behind (timers) is no longer its own. */
  active: boolean;
}

const current = new AsyncLocalStorage<CallIdentity>();

/**
 * Runs `call` as `identity`: every request a per-user OAuth server's connection sends while it
 * runs carries that identity's token (the SDK asks the provider for a token on each request, in
 * the caller's async context). The identity is withdrawn when the call settles, so a reconnect or
 * re-listing timer the call happened to start never runs with a user's token.
 */
export async function runAsIdentity<T>(identity: string, call: () => Promise<T>): Promise<T> {
  const scope: CallIdentity = { identity, active: true };
  try {
    return await current.run(scope, call);
  } finally {
    scope.active = false;
  }
}

/** The identity of the call running now, or undefined outside a per-user call (the operator's). */
export function currentIdentity(): string | undefined {
  const scope = current.getStore();
  return scope?.active ? scope.identity : undefined;
}
