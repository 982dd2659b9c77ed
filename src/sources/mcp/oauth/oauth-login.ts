import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OAuthClientProvider } from '@modelcontextprotocol/client';
import { GatewayError } from '../../../foundation/model/gateway-error.js';
import { clientSdk } from '../client-sdk.js';

/** What an interactive login needs from the provider it drives. */
export interface LoginProviderHooks {
  redirectUrl: string;
  onAuthorizationUrl: (url: URL) => void;
  state: string;
}

export interface OAuthLoginOptions {
  /** The MCP endpoint (the protected resource). */
  serverUrl: string;
  /** `client_credentials` needs no person: the token is fetched at once. */
  grant: 'authorization_code' | 'client_credentials';
  /** The provider to log in with, given the loopback redirect (authorization code only). */
  provider: (hooks: LoginProviderHooks | undefined) => OAuthClientProvider;
  /** Told the URL to open in a browser. */
  onUrl: (url: string) => void;
  /** Gives up waiting for the browser after this long (default 5 minutes). */
  timeoutMs?: number;
}

/** The path of the loopback redirect (RFC 8252 §7.3; the port is picked per login). */
export const CALLBACK_PATH = '/oauth/callback';

/**
 * Logs in to one OAuth-protected MCP server with the SDK's `auth()`: discovery, dynamic
 * registration, then either the client-credentials grant, or the authorization-code grant with
 * PKCE through a loopback redirect: a one-shot HTTP listener on 127.0.0.1 receives the code,
 * checks `state`, and the code is exchanged for tokens (bound to the server by `resource`).
 */
export async function loginWithOAuth(options: OAuthLoginOptions): Promise<void> {
  const { auth } = await clientSdk();
  const serverUrl = new URL(options.serverUrl);
  if (options.grant === 'client_credentials') {
    const result = await auth(options.provider(undefined), { serverUrl });
    if (result !== 'AUTHORIZED') throw new GatewayError('internal', 'the token request did not authorize');
    return;
  }
  const state = randomBytes(24).toString('base64url');
  const callback = await listenForCallback(state, options.timeoutMs ?? 300_000);
  try {
    let shown = false;
    const provider = options.provider({
      redirectUrl: callback.redirectUrl,
      state,
      onAuthorizationUrl: (url) => {
        shown = true;
        options.onUrl(url.toString());
      },
    });
    const first = await auth(provider, { serverUrl });
    if (first === 'AUTHORIZED' && !shown) return;
    const { code, iss } = await callback.code;
    // The issuer is checked against the one discovered (RFC 9207), so a mix-up is refused.
    const result = await auth(provider, { serverUrl, authorizationCode: code, ...(iss ? { iss } : {}) });
    if (result !== 'AUTHORIZED')
      throw new GatewayError('internal', 'the authorization code did not authorize');
  } finally {
    callback.close();
  }
}

/** The one-shot loopback listener of a login (exported for its tests). */
export interface Callback {
  redirectUrl: string;
  /** The authorization code, with the `iss` the server sent beside it (RFC 9207), if any. */
  code: Promise<CallbackResult>;
  close(): void;
}

interface CallbackResult {
  code: string;
  iss?: string;
}

/**
 * The callback's answers are text that echoes the authorization server's `error_description`:
 * never sniffed into HTML, and a document that could load or run nothing if it were.
 */
const PAGE_HEADERS = {
  'content-type': 'text/plain; charset=utf-8',
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
} as const;

/**
 * Listens on 127.0.0.1 for the redirect of the login whose `state` is given, for `timeoutMs`.
 * @internal exported for tests; `loginWithOAuth` is the way in.
 */
export async function listenForCallback(state: string, timeoutMs: number): Promise<Callback> {
  let settle: { resolve: (result: CallbackResult) => void; reject: (error: Error) => void } | undefined;
  const code = new Promise<CallbackResult>((resolve, reject) => {
    settle = { resolve, reject };
  });
  // Nobody may await it if the first step fails: never an unhandled rejection.
  code.catch(() => {});
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== CALLBACK_PATH) {
      response.writeHead(404, { 'x-content-type-options': 'nosniff' }).end();
      return;
    }
    // Another page's redirect (or a forged one) must not complete this login.
    if (url.searchParams.get('state') !== state) {
      response.writeHead(400, PAGE_HEADERS).end('This login link is not the one in progress.');
      return;
    }
    const error = url.searchParams.get('error');
    const received = url.searchParams.get('code');
    if (error !== null || received === null) {
      const description = url.searchParams.get('error_description') ?? error ?? 'no code';
      response.writeHead(400, PAGE_HEADERS).end(`Login failed: ${description}`);
      settle?.reject(
        new GatewayError('auth_required', `the authorization server refused the login: ${description}`),
      );
      return;
    }
    response
      .writeHead(200, PAGE_HEADERS)
      .end('Logged in. You can close this window and return to the terminal.');
    const iss = url.searchParams.get('iss');
    settle?.resolve(iss === null ? { code: received } : { code: received, iss });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const timer = setTimeout(
    () =>
      settle?.reject(
        new GatewayError('timeout', `no login completed within ${Math.round(timeoutMs / 1000)} s`),
      ),
    timeoutMs,
  );
  return {
    redirectUrl: `http://127.0.0.1:${port}${CALLBACK_PATH}`,
    code,
    close: () => {
      clearTimeout(timer);
      server.closeAllConnections();
      server.close();
    },
  };
}
