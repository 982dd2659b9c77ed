import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Part, type Task, TaskState } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataPart, sendRequest } from '../support/a2a-messages.js';
import { type RunningGateway, startHttpGateway, structured } from './gateway-process.js';

/** Introspection cache of the gateway under test: short, so revocation shows within the test. */
const CACHE_MS = 4000;
const GATEWAY_CLIENT = { id: 'aperture', secret: 'aperture-introspection-secret-0123' };
/** Machine clients of the authorization server, each given roles through a token claim. */
const CLIENTS = {
  clock: { secret: 'clock-secret-0123456789abcdef', roles: ['timer'] },
  artist: { secret: 'artist-secret-0123456789abcdef', roles: ['drawer', 'unknown-role'] },
  auditor: { secret: 'auditor-secret-0123456789abcdef', roles: ['timer', 'auditor'] },
  nobody: { secret: 'nobody-secret-0123456789abcdef', roles: ['stranger'] },
} as const;
type ClientName = keyof typeof CLIENTS;
/** Introspection requests the authorization server answered. */
let introspections = 0;

/**
 * `oidc-provider` issuing opaque client-credentials access tokens (with a `roles` claim) and
 * answering RFC 7662 introspection and RFC 7009 revocation, on 127.0.0.1.
 */
async function startIdp(): Promise<{ issuer: string; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const machine = (id: string, secret: string) => ({
    client_id: id,
    client_secret: secret,
    grant_types: ['client_credentials'],
    redirect_uris: [],
    response_types: [],
    token_endpoint_auth_method: 'client_secret_basic',
  });
  const provider = new Provider(issuer, {
    clients: [
      machine(GATEWAY_CLIENT.id, GATEWAY_CLIENT.secret),
      ...Object.entries(CLIENTS).map(([id, c]) => machine(id, c.secret)),
    ],
    features: {
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      devInteractions: { enabled: false },
    },
    // Opaque tokens keep their extra claims server-side; introspection answers them.
    extraTokenClaims: async (_ctx: unknown, token: { clientId: string }) => ({
      roles: [...(CLIENTS[token.clientId as ClientName]?.roles ?? [])],
    }),
    ttl: { ClientCredentials: 3600 },
  });
  const callback = provider.callback();
  server.on('request', (req, res) => {
    if (req.url?.startsWith('/token/introspection')) introspections++;
    callback(req, res);
  });
  return { issuer, server };
}

function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
}

describe('token introspection and roles of `aperture serve`', () => {
  let idp: { issuer: string; server: Server };
  let gateway: RunningGateway;

  async function tokenFor(client: ClientName): Promise<string> {
    const response = await fetch(`${idp.issuer}/token`, {
      method: 'POST',
      headers: {
        authorization: basic(client, CLIENTS[client].secret),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    const body = (await response.json()) as { access_token: string };
    expect(response.status, JSON.stringify(body)).toBe(200);
    // Opaque, not a JWT: only introspection can check it.
    expect(body.access_token.split('.')).toHaveLength(1);
    return body.access_token;
  }

  async function connect(token: string, endpoint = '/mcp') {
    const client = new Client({ name: 'e2e-introspection', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gateway.url}${endpoint}`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    return Object.assign(client, { [Symbol.asyncDispose]: () => client.close() });
  }

  async function rest(token: string, tool: string, args: Record<string, unknown>) {
    return fetch(`${gateway.url}/api/tools/${tool}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(args),
    });
  }

  async function a2a(token: string) {
    const withToken: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('authorization', `Bearer ${token}`);
      return fetch(input, { ...init, headers });
    };
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl: withToken })],
      }),
    );
    const client = await factory.createFromUrl(gateway.url);
    return async (parts: Part[]) => {
      const result = await client.sendMessage(sendRequest(parts));
      if ('messageId' in result) throw new Error('expected a task');
      return result as Task;
    };
  }

  beforeAll(async () => {
    idp = await startIdp();
    const dir = await mkdtemp(path.join(tmpdir(), 'aperture-introspection-'));
    await writeFile(
      path.join(dir, 'aperture.yaml'),
      [
        'server: { name: aperture-introspection-e2e }',
        'observability: { logLevel: warn }',
        'toolsets:',
        '  - { name: time, namespaces: [time] }',
        '  - { name: diagrams, tools: ["plantuml:*"] }',
        'auth:',
        '  introspection:',
        `    url: ${idp.issuer}/token/introspection`,
        `    clientId: ${GATEWAY_CLIENT.id}`,
        `    clientSecret: ${GATEWAY_CLIENT.secret}`,
        `    cacheMs: ${CACHE_MS}`,
        '  roleClaim: roles',
        '  roles:',
        '    timer: { toolsets: [time] }',
        '    drawer: { toolsets: [diagrams] }',
        '    auditor: {}',
        'policies:',
        '  - name: auditors-only-read-the-clock',
        '    effect: deny',
        '    tools: ["time:convert"]',
        '    when: "\'auditor\' in caller.roles && has(args.timezone)"',
        '    reason: auditors only read the clock',
        '',
      ].join('\n'),
    );
    gateway = await startHttpGateway(['--config', path.join(dir, 'aperture.yaml')]);
  });

  afterAll(async () => {
    await gateway?.[Symbol.asyncDispose]();
    idp?.server.closeAllConnections();
    await new Promise((resolve) => idp?.server.close(resolve));
  });

  it('accepts an active opaque token and refuses it once revoked and the cache has expired', async () => {
    // Warm the gateway first (lazy routes, the tool), so the cached window below is not spent on that.
    expect((await rest(await tokenFor('clock'), 'time:now', {})).status).toBe(200);
    const token = await tokenFor('clock');
    const before = introspections;
    const ok = await rest(token, 'time:now', { timezone: 'UTC' });
    expect(ok.status).toBe(200);
    expect(introspections).toBe(before + 1);

    const revoked = await fetch(`${idp.issuer}/token/revocation`, {
      method: 'POST',
      headers: {
        authorization: basic('clock', CLIENTS.clock.secret),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token }).toString(),
    });
    expect(revoked.status).toBe(200);
    // Within the cache the gateway does not ask again (the documented price of caching) …
    const cached = await rest(token, 'time:now', {});
    expect(cached.status).toBe(200);
    expect(introspections).toBe(before + 1);
    await sleep(CACHE_MS + 300);
    // … after it, the revoked token is refused like any invalid one.
    const refused = await rest(token, 'time:now', {});
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    expect(await refused.json()).toMatchObject({ success: false, error: { code: 'unauthorized' } });
    const unknown = await rest('not-a-token-anyone-issued', 'time:now', {});
    expect(unknown.status).toBe(401);
  });

  it('confines a role from the token claim on MCP, REST and A2A alike', async () => {
    const clock = await tokenFor('clock');
    const artist = await tokenFor('artist');

    await using mcpClock = await connect(clock);
    const ids = (client: Client) =>
      client
        .callTool({ name: 'list_tools', arguments: {} })
        .then((r) => structured(r).tools.map((t: { id: string }) => t.id));
    expect(await ids(mcpClock)).toEqual(['time:convert', 'time:now']);
    const outside = await mcpClock.callTool({
      name: 'run_tool',
      arguments: { tool_id: 'plantuml:encode', args: { source: 'A' } },
    });
    expect(structured(outside).error.code).toBe('tool_not_found');
    await using mcpArtist = await connect(artist);
    expect(await ids(mcpArtist)).toEqual(['plantuml:decode', 'plantuml:encode']);

    expect((await rest(clock, 'plantuml:encode', { source: 'A' })).status).toBe(404);
    expect((await rest(artist, 'plantuml:encode', { source: 'A' })).status).toBe(200);
    expect((await rest(artist, 'time:now', {})).status).toBe(404);

    const sendAsArtist = await a2a(artist);
    const drawn = await sendAsArtist([dataPart({ tool_id: 'plantuml:encode', args: { source: 'A' } })]);
    expect(drawn.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const clockViaA2a = await sendAsArtist([dataPart({ tool_id: 'time:now', args: {} })]);
    // A tool outside the caller's toolsets is not found: the task is rejected.
    expect(clockViaA2a.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    const card = (await (
      await fetch(`${gateway.url}/.well-known/agent-card.json`, {
        headers: { authorization: `Bearer ${artist}` },
      })
    ).json()) as { skills: { id: string }[] };
    expect(card.skills.map((s) => s.id).sort()).toEqual(['plantuml:decode', 'plantuml:encode']);
  });

  it('lets policy rules read caller.roles, and refuses a token naming no configured role', async () => {
    const auditor = await tokenFor('auditor');
    expect((await rest(auditor, 'time:now', {})).status).toBe(200);
    const denied = await rest(auditor, 'time:convert', { datetime: '2026-01-01T00:00:00Z', timezone: 'UTC' });
    expect(denied.status).toBe(403);
    expect(await denied.json()).toMatchObject({
      error: { code: 'forbidden', message: expect.stringMatching(/auditors only read the clock/) },
    });
    const clock = await tokenFor('clock');
    const converted = await rest(clock, 'time:convert', {
      datetime: '2026-01-01T00:00:00Z',
      timezone: 'UTC',
    });
    expect(converted.status, await converted.clone().text()).toBe(200);

    const stranger = await tokenFor('nobody');
    const refused = await rest(stranger, 'time:now', {});
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toMatch(/insufficient_scope/);
  });
});
