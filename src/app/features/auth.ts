import { isDeepStrictEqual } from 'node:util';
import type { ApertureConfig } from '../../config/config-schema.js';
import { Authenticator } from '../../operations/auth/authenticator.js';
import type { FeatureFactory } from './feature.js';

declare module './feature.js' {
  interface PartTypes {
    /** Verifies credentials; `current` is undefined when `auth` configures none (every surface is open). */
    auth: { readonly current: Authenticator | undefined };
  }
}

/**
 * Credentials of the HTTP surfaces (`auth`: API keys, JWT). A reload's new keys and JWT settings
 * take effect on the next request, as long as auth stays on and `oauth` is unchanged (turning auth
 * on or off changes the HTTP routes: a restart).
 */
export const auth: FeatureFactory = (config, parts) => {
  const first = authenticatorOf(config.auth);
  const holder: { current: Authenticator | undefined } = { current: first.enabled ? first : undefined };
  parts.provide('auth', holder);
  return {
    name: 'auth',
    reload: {
      auth: (next) => {
        const before = parts.config().auth;
        const after = next.config.auth;
        const authenticator = authenticatorOf(after);
        const wasOn = authenticatorOf(before).enabled;
        if (!wasOn || !authenticator.enabled || !isDeepStrictEqual(before.oauth, after.oauth))
          return 'restart';
        holder.current = authenticator;
        return undefined;
      },
    },
  };
};

/** The authenticator of an `auth` section. */
export function authenticatorOf(auth: ApertureConfig['auth']): Authenticator {
  const { apiKeys, jwt, introspection, roles, roleClaim } = auth;
  return new Authenticator({
    apiKeys,
    ...(jwt ? { jwt: { ...jwt, clockToleranceSec: jwt.clockToleranceSec } } : {}),
    ...(introspection ? { introspection } : {}),
    ...(roles ? { roles } : {}),
    roleClaim,
  });
}
