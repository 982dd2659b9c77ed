import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import Provider, { type ProviderClient } from 'oidc-provider';

/**
 * A real OAuth 2.1 authorization server for tests: `oidc-provider` (certified) on 127.0.0.1 with
 * dynamic client registration, PKCE, refresh tokens, client credentials, and RFC 8707 resource
 * indicators issuing JWT access tokens whose audience is the protected MCP server.
 */
export interface AuthorizationServer extends AsyncDisposable {
  issuer: string;
  provider: Provider;
  /** Refresh tokens it issued (values), for checking they never leak. */
  refreshTokens: Set<string>;
  /** Clients registered dynamically. */
  registrations: () => number;
  /** Ends every grant of `account`: its refresh tokens are refused from now on. */
  revokeGrantsOf(account: string): Promise<void>;
}

export const MACHINE_CLIENT = { id: 'machine', secret: 'machine-secret-0123456789abcdef' };

export async function startAuthorizationServer(options: {
  resources: () => string[];
  accessTokenTtlSec: number;
}): Promise<AuthorizationServer> {
  const server = createServer();
  await listen(server);
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const grants = new Map<string, Set<string>>();
  const refreshTokens = new Set<string>();
  let registrations = 0;
  const resourceInfo = (indicator: string) => {
    if (!options.resources().includes(indicator)) throw new Error(`unknown resource ${indicator}`);
    return {
      scope: 'mcp',
      audience: indicator,
      accessTokenTTL: options.accessTokenTtlSec,
      accessTokenFormat: 'jwt' as const,
    };
  };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: MACHINE_CLIENT.id,
        client_secret: MACHINE_CLIENT.secret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: true },
      revocation: { enabled: true },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => options.resources()[0] ?? '',
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, indicator: string) => resourceInfo(indicator),
      },
    },
    scopes: ['openid', 'offline_access', 'mcp'],
    issueRefreshToken: async (_ctx: unknown, client: ProviderClient) =>
      client.grantTypeAllowed('refresh_token'),
    findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => ({ sub: id }) }),
    ttl: { AccessToken: options.accessTokenTtlSec, ClientCredentials: options.accessTokenTtlSec },
  });
  provider.on('refresh_token.saved', (token: { jti: string; accountId: string; grantId: string }) => {
    refreshTokens.add(token.jti);
    const set = grants.get(token.accountId) ?? new Set();
    set.add(token.grantId);
    grants.set(token.accountId, set);
  });
  provider.on('registration_create.success', () => {
    registrations++;
  });
  server.on('request', provider.callback());
  return {
    issuer,
    provider,
    refreshTokens,
    registrations: () => registrations,
    async revokeGrantsOf(account) {
      for (const grantId of grants.get(account) ?? []) {
        const grant = await provider.Grant.find(grantId);
        await grant?.destroy();
      }
    },
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * Completes a login as `account` the way a person would in a browser, over plain HTTP: follows
 * the authorization URL to the server's login page, submits the login, then the consent, and
 * returns the final redirect (the client's callback URL carrying `code` and `state`).
 */
export async function driveLogin(authorizationUrl: string, account: string): Promise<string> {
  const cookies = new Map<string, string>();
  let url = authorizationUrl;
  let body: URLSearchParams | undefined;
  for (let hop = 0; hop < 20; hop++) {
    const response = await fetch(url, {
      method: body ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(body ? { body } : {}),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair?.indexOf('=') ?? -1;
      if (pair && at > 0) cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    body = undefined;
    const location = response.headers.get('location');
    if (location) {
      const next = new URL(location, url).toString();
      if (new URL(next).pathname === '/oauth/callback') return next;
      url = next;
      continue;
    }
    const page = await response.text();
    if (response.status !== 200) throw new Error(`login page ${url} answered ${response.status}: ${page}`);
    // oidc-provider's development pages: a login form, then a consent form, both posting back.
    const prompt =
      /name="prompt" value="(\w+)"/.exec(page)?.[1] ?? (/name="login"/.test(page) ? 'login' : 'consent');
    body = new URLSearchParams(prompt === 'login' ? { prompt, login: account, password: 'x' } : { prompt });
    const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
    if (!action) throw new Error(`no form on ${url}: ${page.slice(0, 300)}`);
    url = new URL(action, url).toString();
  }
  throw new Error('the login did not reach the callback');
}

/**
 * A remote MCP server protected as the MCP authorization spec says: RFC 9728 metadata naming the
 * authorization server, 401 + `WWW-Authenticate` without a valid token, and tokens checked against
 * the authorization server's JWKS, issuer and audience (this server's URL). Its tool `whoami`
 * answers the token's subject and client, so a test sees whose token each call carried.
 */
export interface ProtectedMcpServer extends AsyncDisposable {
  url: string;
  /** Every bearer token it was sent (valid or not), for checking they never leak. */
  tokens: Set<string>;
  /** Requests refused with 401. */
  refused: () => number;
  /** Calls of `whoami`, by subject. */
  calls: Map<string, number>;
  /** Refuses the next `count` requests with 401 even with a valid token (a token revoked early). */
  rejectNext(count: number): void;
}

export async function startProtectedMcpServer(issuer: () => string): Promise<ProtectedMcpServer> {
  const tokens = new Set<string>();
  const calls = new Map<string, number>();
  let refused = 0;
  let rejecting = 0;
  const server = createServer();
  await listen(server);
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const resource = `${base}/mcp`;
  let jwks: ReturnType<typeof createRemoteJWKSet> | undefined;
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    void (async () => {
      const path = new URL(request.url ?? '/', base).pathname;
      if (path === '/.well-known/oauth-protected-resource/mcp') {
        response.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            resource,
            authorization_servers: [issuer()],
            scopes_supported: ['mcp'],
            bearer_methods_supported: ['header'],
          }),
        );
        return;
      }
      if (path !== '/mcp') {
        response.writeHead(404).end();
        return;
      }
      const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
      let claims: { sub?: string; client_id?: string } | undefined;
      if (token) {
        tokens.add(token);
        jwks ??= createRemoteJWKSet(new URL(`${issuer()}/jwks`));
        claims = await jwtVerify(token, jwks, { issuer: issuer(), audience: resource })
          .then((verified) => verified.payload as { sub?: string; client_id?: string })
          .catch(() => undefined);
      }
      if (claims && rejecting > 0) {
        rejecting--;
        claims = undefined;
      }
      if (!claims) {
        refused++;
        response
          .writeHead(401, {
            'www-authenticate': `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp", scope="mcp"`,
          })
          .end();
        return;
      }
      const who = claims;
      const mcp = new McpServer({ name: 'protected', version: '1.0.0' });
      mcp.registerTool(
        'whoami',
        { description: 'Says whose token the call carried', inputSchema: {} },
        async () => {
          const subject = who.sub ?? `client:${who.client_id}`;
          calls.set(subject, (calls.get(subject) ?? 0) + 1);
          return {
            content: [{ type: 'text', text: JSON.stringify({ sub: subject }) }],
            structuredContent: { sub: subject },
          };
        },
      );
      const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
      await mcp.connect(transport);
      response.on('close', () => void mcp.close());
      await transport.handleRequest(request, response);
    })().catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500).end(String(error));
    });
  });
  return {
    url: resource,
    tokens,
    calls,
    refused: () => refused,
    rejectNext: (count) => {
      rejecting = count;
    },
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function listen(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
}
