// biome-ignore-all lint/suspicious/noExplicitAny: JSON answers of a running gateway
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JwtIssuer, startJwtIssuer } from '../support/jwt-issuer.js';
import { type RunningGateway, startHttpGateway, structured } from './gateway-process.js';

/**
 * An API key named `ka` and a JWT whose `sub` is `ka` are two callers: nothing kept per caller
 * (identity-partitioned cache entries, rate-limit buckets, MCP sessions) is shared between them.
 */
describe('one name, two authentication methods', () => {
  const KEY = 'identity-partitions-key-0123456789abcdef';
  let issuer: JwtIssuer;
  let gateway: RunningGateway;
  let dir: string;
  let jwt: string;

  beforeAll(async () => {
    issuer = await startJwtIssuer();
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-identities-'));
    // A read-only tool whose answer changes on every real run: a cache hit shows as a repeated `n`.
    await writeFile(
      path.join(dir, 'counter.mjs'),
      [
        'let n = 0;',
        'export const counter = {',
        "  name: 'counter', namespace: 'e2e', description: 'Counts its runs',",
        "  inputSchema: { type: 'object' }, annotations: { readOnlyHint: true },",
        '  handler: () => ({ n: ++n }),',
        '};',
        'export const limited = {',
        "  name: 'limited', namespace: 'e2e', description: 'Rate limited',",
        "  inputSchema: { type: 'object' }, handler: () => ({ ok: true }),",
        '};',
        '',
      ].join('\n'),
    );
    await writeFile(
      path.join(dir, 'aperture.yaml'),
      [
        'server: { name: identities-e2e }',
        'observability: { logLevel: warn }',
        'tools: { builtin: false, modules: ["./counter.mjs"] }',
        'cache: { partition: identity }',
        'rateLimits: [{ tool: "e2e:limited", perMinute: 1 }]',
        'auth:',
        `  apiKeys: [{ name: ka, key: "${KEY}" }]`,
        '  jwt:',
        `    jwksUrl: ${issuer.jwksUrl}`,
        `    issuer: ${issuer.issuer}`,
        '    audience: aperture',
        '',
      ].join('\n'),
    );
    jwt = await issuer.sign({ sub: 'ka' });
    gateway = await startHttpGateway(['--config', path.join(dir, 'aperture.yaml')], dir);
  });

  afterAll(async () => {
    await gateway?.[Symbol.asyncDispose]();
    await issuer?.[Symbol.asyncDispose]();
    await rm(dir, { recursive: true, force: true });
  });

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  async function connect(headers: Record<string, string>) {
    const client = new Client({ name: 'e2e-identities', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), {
      requestInit: { headers },
    });
    await client.connect(transport);
    return Object.assign(client, { http: transport, [Symbol.asyncDispose]: () => client.close() });
  }

  const run = async (client: Client, tool: string) =>
    structured(await client.callTool({ name: 'run_tool', arguments: { tool_id: tool, args: {} } }));

  it('does not serve the API key’s cached result to the JWT subject of the same name', async () => {
    await using apiKey = await connect(bearer(KEY));
    await using subject = await connect(bearer(jwt));
    expect(await run(apiKey, 'e2e:counter')).toEqual({ n: 1 });
    expect(await run(apiKey, 'e2e:counter')).toEqual({ n: 1 });
    // The JWT caller "ka" runs the tool itself, then gets its own entry.
    expect(await run(subject, 'e2e:counter')).toEqual({ n: 2 });
    expect(await run(subject, 'e2e:counter')).toEqual({ n: 2 });
    expect(await run(apiKey, 'e2e:counter')).toEqual({ n: 1 });
  });

  it('gives each of them a rate-limit bucket of its own', async () => {
    await using apiKey = await connect(bearer(KEY));
    await using subject = await connect(bearer(jwt));
    expect(await run(apiKey, 'e2e:limited')).toEqual({ ok: true });
    expect(await run(subject, 'e2e:limited')).toEqual({ ok: true });
    expect((await run(subject, 'e2e:limited')).error?.code).toBe('rate_limited');
  });

  it('refuses a session opened with the API key to the JWT subject of the same name', async () => {
    await using apiKey = await connect(bearer(KEY));
    const sessionId = apiKey.http.sessionId;
    expect(sessionId).toBeTruthy();
    const post = (token: string) =>
      fetch(`${gateway.url}/mcp`, {
        method: 'POST',
        headers: {
          ...bearer(token),
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': String(sessionId),
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} }),
      });
    expect((await post(jwt)).status).toBe(403);
    expect((await post(KEY)).status).toBe(200);
  });
});
