import { OAuthSupport } from '../oauth-support.js';
import type { FeatureFactory } from './feature.js';
import { reconnectServer } from './sources.js';

declare module './feature.js' {
  interface PartTypes {
    /** Tokens of the servers that use OAuth, per-user calls, logins completed by the gateway. */
    oauth: OAuthSupport;
  }
}

/**
 * OAuth to downstream servers: the encrypted token store (in the state store, bound before any
 * server connects), the `as-caller` slot (innermost: a per-user server's request carries the
 * caller's token, whatever retried it), and `GET /oauth/callback` where the gateway completes
 * per-user logins and the console's "Log in".
 */
export const oauth: FeatureFactory = (config, parts) => {
  const { log } = parts.gateway;
  const support = parts.provide('oauth', new OAuthSupport(config, log));
  support.bind(parts.need('searchBacking').state);
  // A shared token set just logged in: connect now rather than at the next backoff retry.
  support.onLoggedIn = (server, identity) => {
    if (identity === '') void reconnectServer(parts.need('remote'), server).catch(() => {});
  };
  const asCaller = support.middleware();
  return {
    name: 'oauth',
    ...(asCaller ? { middleware: { 'as-caller': asCaller } } : {}),
    ...(support.enabled
      ? {
          http: {
            routes: async () => [await callbackRoutes(support)],
            listening: (url: string) => support.listening(url),
          },
        }
      : {}),
  };
};

/** `GET /oauth/callback`: the authorization server sends a per-user login's answer here. */
async function callbackRoutes(support: OAuthSupport) {
  const { Hono } = await import('hono');
  const app = new Hono();
  app.get('/oauth/callback', async (c) => {
    const { status, text } = await support.completeLogin(new URL(c.req.url));
    return c.text(text, status);
  });
  return app;
}
