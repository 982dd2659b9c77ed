import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EchoService, startEchoService } from '../fixtures/openapi/echo-service.js';
import {
  connectHttp,
  FIXTURE_CONFIG,
  ROOT,
  type RunningGateway,
  startHttpGateway,
  structured,
} from './gateway-process.js';

/**
 * A gateway whose catalog comes partly from the network: an OpenAPI service, another gateway
 * reached as an A2A agent, and two sources that fail (a broken document, an agent that is down).
 */
describe('OpenAPI services and A2A agents as sources of `aperture serve`', () => {
  let echo: EchoService;
  let peer: RunningGateway;
  let gateway: RunningGateway;

  beforeAll(async () => {
    echo = await startEchoService();
    peer = await startHttpGateway(['--config', FIXTURE_CONFIG]);
    const dir = await mkdtemp(path.join(tmpdir(), 'aperture-remote-'));
    const config = path.join(dir, 'aperture.yaml');
    await writeFile(
      config,
      [
        'tools: { builtin: false }',
        'openapi:',
        `  - { spec: "${echo.specUrl}", namespace: echo, allowPrivateNetwork: true, timeoutMs: 2000 }`,
        `  - { spec: "${path.join(ROOT, 'test/fixtures/openapi/invalid.yaml')}", namespace: broken }`,
        'agents:',
        `  peer: { url: "${peer.url}", allowPrivateNetwork: true }`,
        '  down: { url: "http://127.0.0.1:9", allowPrivateNetwork: true }',
        'observability: { logLevel: error }',
      ].join('\n'),
    );
    gateway = await startHttpGateway(['--config', config]);
  });

  afterAll(async () => {
    await gateway?.[Symbol.asyncDispose]();
    await peer?.[Symbol.asyncDispose]();
    await echo?.[Symbol.asyncDispose]();
  });

  it('reports each source in /readyz once all were tried: failures with their reason', async () => {
    let body:
      | {
          ready: boolean;
          sources: { id: string; state: string; tools: number; lastError?: { code: string } }[];
        }
      | undefined;
    for (let i = 0; i < 50; i++) {
      const res = await fetch(`${gateway.url}/readyz`);
      body = (await res.json()) as typeof body;
      if (res.status === 200) break;
      expect(res.status).toBe(503);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(body?.ready).toBe(true);
    const byId = new Map(body?.sources.map((s) => [s.id, s]));
    expect(byId.get('openapi:echo')).toMatchObject({ state: 'connected' });
    expect(byId.get('openapi:echo')?.tools).toBeGreaterThan(3);
    expect(byId.get('openapi:broken')).toMatchObject({
      state: 'failed',
      lastError: { code: 'config_invalid' },
    });
    expect(byId.get('a2a:peer')).toMatchObject({ state: 'connected' });
    expect(byId.get('a2a:down')).toMatchObject({
      state: 'failed',
      lastError: { code: 'backend_unavailable' },
    });
  });

  it('runs an OpenAPI operation and a remote agent skill through MCP', async () => {
    await using client = await connectHttp(gateway.url);
    const found = structured(
      await client.callTool({ name: 'search_tools', arguments: { query: 'fetch one item', limit: 3 } }),
    );
    expect(found.tools[0].id).toBe('echo:getItem');
    const item = await client.callTool({
      name: 'run_tool',
      arguments: { tool_id: 'echo:getItem', args: { id: 'a b', limit: 5 } },
    });
    expect(item.isError, JSON.stringify(item.content)).toBeFalsy();
    expect(echo.requests.at(-1)?.path).toBe('/api/items/a%20b');

    const failing = await client.callTool({
      name: 'run_tool',
      arguments: { tool_id: 'echo:fail', args: { status: 503 } },
    });
    expect(structured(failing).error.code).toBe('execution_failed');
    expect(structured(failing).error.message).toMatch(/HTTP 5\d\d/);

    const peerTools = structured(
      await client.callTool({ name: 'list_tools', arguments: { namespace: 'peer' } }),
    ).tools;
    expect(peerTools.length).toBeGreaterThan(0);
    const reply = await client.callTool({
      name: 'run_tool',
      arguments: { tool_id: peerTools[0].id, args: { message: 'which tool encodes diagrams?' } },
    });
    expect(reply.isError).toBeFalsy();
    expect(JSON.stringify(reply.content)).toContain('plantuml:encode');
  });
});
