import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway, HttpListener } from '../../src/app/gateway.js';
import { faultyServer } from '../support/fixture-servers.js';
import { gatewayFrom } from '../support/in-process-gateway.js';

/** The aggregate through its HTTP surfaces: flat names, hidden tools, the manifest, connector tools. */
describe('an aggregate of downstream servers over HTTP', () => {
  let gateway: Gateway;
  let listener: HttpListener;
  let client: Client;

  beforeAll(async () => {
    gateway = await gatewayFrom({
      servers: {
        plain: faultyServer({}, { prefix: false }),
        other: faultyServer(),
      },
      exposure: { mode: 'flat', connectorTools: true },
      overrides: {
        'plain:crash': { hidden: true },
        'other:crash': { hidden: true },
        'plain:echo': { name: 'say', title: 'Say', description: 'Repeats the text' },
        'other:add': { args: { fixed: { b: 100 } } },
      },
    });
    await gateway.whenReady();
    listener = await gateway.serveHttp('127.0.0.1', 0);
    client = new Client({ name: 'it', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${listener.url}/mcp`)));
  });
  afterAll(async () => {
    await client.close();
    await gateway.close();
  });

  it('lists own names for prefix: false, namespace__name otherwise, never hidden tools', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('say');
    expect(names).toContain('sleep');
    expect(names).toContain('other__echo');
    expect(names).toContain('other__sleep');
    expect(names).not.toContain('echo');
    expect(names.some((n) => n.endsWith('crash'))).toBe(false);
    for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
  });

  it('a renamed tool reaches the original; a hidden one cannot be run by any name', async () => {
    const said = await client.callTool({ name: 'say', arguments: { text: 'hello' } });
    expect(said.content).toEqual([{ type: 'text', text: 'hello' }]);
    for (const name of ['crash', 'other__crash']) {
      await expect(client.callTool({ name, arguments: {} })).rejects.toThrow(/Unknown tool/);
    }
    await expect(gateway.scope.run('plain:crash', {}, { caller: { identity: 't' } })).rejects.toMatchObject({
      code: 'tool_not_found',
    });
  });

  it('fixed arguments are invisible to the client and always sent', async () => {
    const { tools } = await client.listTools();
    const add = tools.find((t) => t.name === 'other__add');
    expect(Object.keys(add?.inputSchema.properties ?? {})).toEqual(['a']);
    const result = await client.callTool({ name: 'other__add', arguments: { a: 1 } });
    expect(result.structuredContent).toEqual({ sum: 101 });
  });

  it('serves the manifest with overrides applied and the endpoint URL', async () => {
    const response = await fetch(`${listener.url}/.well-known/mcp/manifest.json`);
    expect(response.status).toBe(200);
    const manifest = (await response.json()) as {
      endpoint: { url: string };
      toolCount: number;
      tools: { id: string; name: string; title?: string; description: string }[];
    };
    expect(manifest.endpoint.url).toBe(`${listener.url}/mcp`);
    const say = manifest.tools.find((t) => t.id === 'plain:say');
    expect(say).toMatchObject({ name: 'say', title: 'Say', description: 'Repeats the text' });
    expect(manifest.tools.some((t) => t.id.endsWith(':crash'))).toBe(false);
    expect(manifest.toolCount).toBe(gateway.catalog.size);
  });

  it('answers the ChatGPT connector tools search and fetch from the catalog', async () => {
    const found = await client.callTool({ name: 'search', arguments: { query: 'repeat the text' } });
    const first = found.content as { type: string; text: string }[];
    const { results } = JSON.parse(first[0]?.text ?? '{}') as { results: { id: string; url: string }[] };
    expect(results.map((r) => r.id)).toContain('plain:say');
    const fetched = await client.callTool({ name: 'fetch', arguments: { id: 'plain:say' } });
    const doc = JSON.parse((fetched.content as { text: string }[])[0]?.text ?? '{}') as {
      id: string;
      text: string;
      url: string;
    };
    expect(doc.id).toBe('plain:say');
    expect(doc.text).toContain('Repeats the text');
    expect(doc.url).toBe(`${listener.url}/api/tools/plain%3Asay`);
  });
});
