// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests write ${env:…} references on purpose.
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JwtIssuer, startJwtIssuer } from '../support/jwt-issuer.js';
import { CLI, type RunningGateway, startHttpGateway, structured } from './gateway-process.js';

const exec = promisify(execFile);

/** Toolsets and auth of `aperture serve` as a user runs it: a config file, keys from the env, a JWKS. */
describe('toolsets and auth of `aperture serve`', () => {
  const TIME_KEY = 'e2e-time-key-0123456789abcdef';
  let issuer: JwtIssuer;
  let gateway: RunningGateway;
  let dir: string;

  beforeAll(async () => {
    issuer = await startJwtIssuer();
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-auth-'));
    await writeFile(
      path.join(dir, 'aperture.yaml'),
      [
        'server: { name: aperture-auth-e2e }',
        'observability: { logLevel: warn }',
        'toolsets:',
        '  - { name: time, description: Clocks, namespaces: [time] }',
        '  - { name: diagrams, tools: ["plantuml:*"] }',
        'auth:',
        '  apiKeys:',
        '    - { name: timekeeper, key: "${env:APERTURE_E2E_TIME_KEY}", toolsets: [time] }',
        '  jwt:',
        `    jwksUrl: ${issuer.jwksUrl}`,
        `    issuer: ${issuer.issuer}`,
        '    audience: aperture',
        '    toolsetsClaim: toolsets',
        '  oauth:',
        `    authorizationServers: [${issuer.issuer}]`,
        '',
      ].join('\n'),
    );
    process.env.APERTURE_E2E_TIME_KEY = TIME_KEY;
    gateway = await startHttpGateway(['--config', path.join(dir, 'aperture.yaml')]);
  });

  afterAll(async () => {
    await gateway?.[Symbol.asyncDispose]();
    await issuer?.[Symbol.asyncDispose]();
    delete process.env.APERTURE_E2E_TIME_KEY;
  });

  async function connect(headers: Record<string, string>, endpoint = '/mcp') {
    const client = new Client({ name: 'e2e-auth', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gateway.url}${endpoint}`), { requestInit: { headers } }),
    );
    return Object.assign(client, { [Symbol.asyncDispose]: () => client.close() });
  }

  it('refuses /mcp without credentials (401 + resource_metadata) and keeps health open', async () => {
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
    const refused = await fetch(`${gateway.url}/mcp`, { method: 'POST', body: '{}' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe(
      `Bearer realm="aperture", resource_metadata="${gateway.url}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(await refused.json()).toMatchObject({ success: false, error: { code: 'unauthorized' } });
    const metadata = await (await fetch(`${gateway.url}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(metadata).toEqual({
      resource: `${gateway.url}/mcp`,
      authorization_servers: [issuer.issuer],
      bearer_methods_supported: ['header'],
      resource_name: 'aperture-auth-e2e',
    });
  });

  it('confines a key from ${env:…} to its toolset over MCP and REST', async () => {
    await using client = await connect({ authorization: `Bearer ${TIME_KEY}` });
    expect(
      structured(await client.callTool({ name: 'list_tools', arguments: {} })).tools.map((t: any) => t.id),
    ).toEqual(['time:convert', 'time:now']);
    const outside = await client.callTool({
      name: 'run_tool',
      arguments: { tool_id: 'plantuml:encode', args: { source: 'A' } },
    });
    expect(structured(outside).error.code).toBe('tool_not_found');
    const rest = await fetch(`${gateway.url}/api/tools/plantuml:encode`, {
      method: 'POST',
      headers: { 'x-api-key': TIME_KEY, 'content-type': 'application/json' },
      body: '{"source":"A"}',
    });
    expect(rest.status).toBe(404);
    const denied = await fetch(`${gateway.url}/mcp/diagrams`, {
      method: 'POST',
      headers: { 'x-api-key': TIME_KEY, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(denied.status).toBe(403);
  });

  it('serves /mcp/{toolset} to a JWT caller with only that toolset listed', async () => {
    const token = await issuer.sign({ sub: 'dana', toolsets: ['diagrams', 'time'] });
    await using client = await connect({ authorization: `Bearer ${token}` }, '/mcp/diagrams');
    const flat = (await client.listTools()).tools.map((t) => t.name).filter((n) => n.includes('__'));
    expect(flat.sort()).toEqual(['plantuml__decode', 'plantuml__encode']);
    const expired = await issuer.sign({ toolsets: ['time'] }, { expiresIn: -300 });
    await expect(connect({ authorization: `Bearer ${expired}` })).rejects.toThrow(/expired/);
  });

  it('`aperture export --toolset` prints only that toolset; config validate names a bad reference', async () => {
    const env = { ...process.env, APERTURE_E2E_TIME_KEY: TIME_KEY };
    const { stdout } = await exec(
      process.execPath,
      [CLI, 'export', '--format', 'mcp', '--toolset', 'time', '--config', path.join(dir, 'aperture.yaml')],
      { env },
    );
    expect((JSON.parse(stdout) as { tools: { name: string }[] }).tools.map((t) => t.name).sort()).toEqual([
      'time__convert',
      'time__now',
    ]);

    const bad = path.join(dir, 'bad.yaml');
    await writeFile(
      bad,
      'toolsets: [{ name: time }]\nauth: { apiKeys: [{ name: ci, key: "0123456789abcdef0123", toolsets: [tme] }] }\n',
    );
    const failed = await exec(process.execPath, [CLI, 'config', 'validate', bad]).catch(
      (e) => e as { code: number; stderr: string },
    );
    expect((failed as { code: number }).code).toBe(2);
    expect((failed as { stderr: string }).stderr).toContain('auth.apiKeys[0].toolsets[0]: no toolset "tme"');
  });
});
