import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AuthorizationServer,
  MACHINE_CLIENT,
  type ProtectedMcpServer,
  startAuthorizationServer,
  startProtectedMcpServer,
} from '../support/oauth-servers.js';
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlp-receiver.js';
import { connectHttp, type RunningGateway, startHttpGateway, structured } from './gateway-process.js';
import { loginAs, runLogin, waitReady } from './oauth-cli.js';

const TOKEN_KEY = 'e2e-token-key-0123456789abcdef';
/** Short-lived access tokens: 100 calls over ~12 s span several expiries. */
const TTL_SEC = 5;

describe('remote MCP servers behind OAuth (oidc-provider as the authorization server)', () => {
  let dir: string;
  let config: string;
  let as: AuthorizationServer;
  let docs: ProtectedMcpServer;
  let machine: ProtectedMcpServer;
  let gateway: RunningGateway | undefined;
  let receiver: OtlpReceiver;
  /** Every error a client was answered with, checked for secrets at the end. */
  const errorsSeen: string[] = [];
  const env = { ...process.env, APERTURE_TEST_TOKEN_KEY: TOKEN_KEY, MACHINE_SECRET: MACHINE_CLIENT.secret };

  beforeAll(async () => {
    // The gateways started below inherit them (the env secret provider).
    process.env.APERTURE_TEST_TOKEN_KEY = TOKEN_KEY;
    process.env.MACHINE_SECRET = MACHINE_CLIENT.secret;
    dir = mkdtempSync(path.join(tmpdir(), 'aperture-oauth-'));
    receiver = await startOtlpReceiver();
    let issuer = '';
    docs = await startProtectedMcpServer(() => issuer);
    machine = await startProtectedMcpServer(() => issuer);
    as = await startAuthorizationServer({
      resources: () => [docs.url, machine.url],
      accessTokenTtlSec: TTL_SEC,
    });
    issuer = as.issuer;
    config = path.join(dir, 'aperture.yaml');
    writeFileSync(
      config,
      [
        'server: { name: oauth-e2e }',
        'tools: { builtin: false }',
        'exposure: metatools',
        'startup: { waitMs: 10000 }',
        // Debug logs and exported spans: more places a token must not show up in.
        `observability: { logLevel: debug, otlp: { endpoint: "${receiver.url}" } }`,
        'servers:',
        `  docs: { url: "${docs.url}", transport: streamable-http, oauth: {} }`,
        `  machine: { url: "${machine.url}", transport: streamable-http, oauth: { grant: client_credentials, clientId: ${MACHINE_CLIENT.id}, clientSecret: "\${secret:MACHINE_SECRET}" } }`,
        `state: { dir: "${path.join(dir, 'state')}", tokenKey: "\${secret:APERTURE_TEST_TOKEN_KEY}" }`,
        '',
      ].join('\n'),
    );
  }, 30_000);

  afterAll(async () => {
    await gateway?.[Symbol.asyncDispose]();
    await docs?.[Symbol.asyncDispose]();
    await machine?.[Symbol.asyncDispose]();
    await as?.[Symbol.asyncDispose]();
    await receiver?.[Symbol.asyncDispose]();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a gateway with no login reports auth_required naming the login command', async () => {
    await using started = await startHttpGateway(['--config', config], dir);
    const readyz = (await (await fetch(`${started.url}/readyz`)).json()) as {
      sources: {
        id: string;
        state: string;
        lastError?: { code: string; message: string };
        oauth?: unknown;
      }[];
    };
    const docsStatus = readyz.sources.find((source) => source.id === 'mcp:docs');
    expect(docsStatus?.state).toBe('failed');
    expect(docsStatus?.lastError?.code).toBe('auth_required');
    expect(docsStatus?.lastError?.message).toContain('aperture login docs');
    expect(docsStatus?.oauth).toEqual([{ identity: '', tokens: false }]);
  }, 30_000);

  it('login refuses a server without oauth, and --user on a server that is not per-user (exit 2)', async () => {
    const unknown = await runLogin(['nosuch', '--no-open', '--config', config], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/"nosuch" is not a server with oauth \(docs, machine\)/);
    const user = await runLogin(['docs', '--user', 'alice', '--no-open', '--config', config], env);
    expect(user.code).toBe(2);
    expect(user.stderr).toContain('--user needs oauth.perUser: true on server "docs"');
  }, 30_000);

  it('discovers, registers dynamically and logs in with PKCE; calls then carry the user token', async () => {
    const login = await runLogin(['docs', '--no-open', '--config', config], env, loginAs('alice'));
    expect(login.stderr).toBe('');
    expect(login.code).toBe(0);
    expect(login.stdout).toMatch(/Logged in to docs/);
    expect(as.registrations()).toBe(1);
    const authorizeUrl = new URL(/^(http\S+\/auth\S*)$/m.exec(login.stdout)?.[1] ?? '');
    expect(authorizeUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizeUrl.searchParams.get('resource')).toBe(docs.url);

    gateway = await startHttpGateway(['--config', config], dir);
    // Ready once every server was tried: docs has listed its tools with the new token.
    await waitReady(gateway.url);
    await using client = await connectHttp(gateway.url);
    const result = await client.callTool({
      name: 'run_tool',
      arguments: { tool_id: 'docs:whoami', args: {} },
    });
    expect(structured(result)).toEqual({ sub: 'alice' });
  }, 60_000);

  it('client_credentials gets a machine token without a person', async () => {
    if (!gateway) throw new Error('needs the gateway of the previous test');
    await using client = await connectHttp(gateway.url);
    const result = await client.callTool({
      name: 'run_tool',
      arguments: { tool_id: 'machine:whoami', args: {} },
    });
    expect(result.isError).toBeFalsy();
    expect(structured(result)).toEqual({ sub: MACHINE_CLIENT.id });
  }, 30_000);

  it('doctor connects with the stored tokens and shows their status', async () => {
    const run = await runLogin(['doctor', '--json', '--config', config], env);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as {
      servers: {
        name: string;
        state: string;
        tools: number;
        oauth?: { identity: string; tokens: boolean; expiresAt?: string }[];
      }[];
    };
    const docsCheck = report.servers.find((server) => server.name === 'docs');
    expect(docsCheck).toMatchObject({ state: 'ok', tools: 1 });
    expect(docsCheck?.oauth?.[0]).toMatchObject({
      identity: '',
      tokens: true,
      expiresAt: expect.any(String),
    });
    for (const token of [...docs.tokens, ...as.refreshTokens]) expect(run.stdout.includes(token)).toBe(false);
  }, 30_000);

  it('refreshes short-lived tokens ahead of expiry: 100 calls over several expiries, none fails', async () => {
    if (!gateway) throw new Error('needs the gateway of the previous test');
    await using client = await connectHttp(gateway.url);
    const refusedBefore = docs.refused();
    const started = Date.now();
    const failures: unknown[] = [];
    for (let i = 0; i < 100; i++) {
      const result = await client.callTool({
        name: 'run_tool',
        arguments: { tool_id: 'docs:whoami', args: {} },
      });
      if (result.isError || structured(result)?.sub !== 'alice') failures.push(result);
      // Spread over ~2.5 token lifetimes, so several access tokens expire during the run.
      await new Promise((resolve) => setTimeout(resolve, 120));
    }
    expect(failures).toEqual([]);
    expect(Date.now() - started).toBeGreaterThan(2 * TTL_SEC * 1000);
    // Refreshed before expiry: the server never had to refuse an expired token.
    expect(docs.refused() - refusedBefore).toBe(0);
    const status = await runLogin(['--status', '--json', '--config', config], env);
    const parsed = JSON.parse(status.stdout) as Record<
      string,
      { identity: string; tokens: boolean; lastRefreshAt?: string }[]
    >;
    expect(parsed.docs?.[0]).toMatchObject({ identity: '', tokens: true });
    expect(parsed.docs?.[0]?.lastRefreshAt).toBeDefined();
  }, 60_000);

  it('a token the server refuses early is refreshed once more on the 401 and the call succeeds', async () => {
    if (!gateway) throw new Error('needs the gateway of the previous test');
    await using client = await connectHttp(gateway.url);
    const refusedBefore = docs.refused();
    const tokensBefore = docs.tokens.size;
    docs.rejectNext(1);
    const result = await client.callTool({
      name: 'run_tool',
      arguments: { tool_id: 'docs:whoami', args: {} },
    });
    expect(structured(result)).toEqual({ sub: 'alice' });
    expect(docs.refused() - refusedBefore).toBe(1);
    // The retry carried a new access token.
    expect(docs.tokens.size).toBeGreaterThan(tokensBefore);
  }, 30_000);

  it('a revoked refresh token turns calls into auth_required; the other server keeps working', async () => {
    if (!gateway) throw new Error('needs the gateway of the previous test');
    await using client = await connectHttp(gateway.url);
    await as.revokeGrantsOf('alice');
    // The current access token stays valid until it expires; the refresh before then is refused.
    const deadline = Date.now() + (TTL_SEC + 10) * 1000;
    let error: { code: string; message: string; details?: Record<string, unknown> } | undefined;
    while (Date.now() < deadline) {
      const result = await client.callTool({
        name: 'run_tool',
        arguments: { tool_id: 'docs:whoami', args: {} },
      });
      if (result.isError) {
        error = structured(result).error;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    errorsSeen.push(JSON.stringify(error));
    expect(error?.code).toBe('auth_required');
    expect(error?.message).toContain('aperture login docs');
    const other = await client.callTool({
      name: 'run_tool',
      arguments: { tool_id: 'machine:whoami', args: {} },
    });
    expect(other.isError).toBeFalsy();
    const status = await runLogin(['--status', '--config', config], env);
    expect(status.stdout).toMatch(/docs: no tokens; .*last refresh error: refresh refused/);
  }, 60_000);

  it('no token or client secret appears in logs, /readyz, /metrics, traces, errors or the state files', async () => {
    if (!gateway) throw new Error('needs the gateway of the previous test');
    const readyz = await (await fetch(`${gateway.url}/readyz`)).text();
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    // Stopping the gateway flushes the spans still queued for export.
    await gateway[Symbol.asyncDispose]();
    const traces = receiver.requests.map((request) => request.body).join('\n');
    expect(
      receiver.spans.some((span) => span.name.includes('whoami') || JSON.stringify(span).includes('docs')),
    ).toBe(true);
    const stateFiles = readdirSync(path.join(dir, 'state')).map((file) =>
      readFileSync(path.join(dir, 'state', file)).toString('latin1'),
    );
    const secrets = [
      ...docs.tokens,
      ...machine.tokens,
      ...as.refreshTokens,
      MACHINE_CLIENT.secret,
      TOKEN_KEY,
    ];
    expect(docs.tokens.size).toBeGreaterThan(2);
    expect(as.refreshTokens.size).toBeGreaterThan(2);
    for (const [where, text] of [
      ['gateway log', gateway.stderr()],
      ['readyz', readyz],
      ['metrics', metrics],
      ['traces', traces],
      ['errors', errorsSeen.join('\n')],
      ...stateFiles.map((text, i) => [`state file ${i}`, text] as const),
    ] as const) {
      for (const secret of secrets) expect(text.includes(secret), `${where} holds a secret`).toBe(false);
    }
    // readyz tells the token status without the tokens.
    expect(
      JSON.parse(readyz).sources.find((s: { id: string }) => s.id === 'mcp:machine').oauth[0],
    ).toMatchObject({
      tokens: true,
    });
  }, 30_000);
});
