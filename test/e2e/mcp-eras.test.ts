import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpPost } from '../support/mcp-post.js';
import { FIXTURE_CONFIG, type RunningGateway, startHttpGateway } from './gateway-process.js';

const MODERN = '2026-07-28';

/** A v2 SDK client on `endpoint`: `auto` negotiates the era, `legacy` speaks 2025 only. */
async function connect(url: string, mode: 'auto' | 'legacy'): Promise<Client> {
  const client = new Client({ name: `eras-${mode}`, version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

describe('both MCP eras on one endpoint', () => {
  let gateway: RunningGateway;

  beforeAll(async () => {
    gateway = await startHttpGateway(['--config', FIXTURE_CONFIG]);
  });

  afterAll(async () => {
    await gateway?.[Symbol.asyncDispose]();
  });

  it('serves a 2026-07-28 client statelessly and a 2025 client with a session, the same tools', async () => {
    const modern = await connect(`${gateway.url}/mcp`, 'auto');
    const legacy = await connect(`${gateway.url}/mcp`, 'legacy');
    try {
      expect(modern.getNegotiatedProtocolVersion()).toBe(MODERN);
      expect(legacy.getNegotiatedProtocolVersion()).toBe('2025-11-25');
      // server/discover describes what initialize does.
      expect(modern.getServerVersion()?.name).toBe(legacy.getServerVersion()?.name);
      expect(modern.getServerCapabilities()?.tools).toBeDefined();
      const [modernTools, legacyTools] = await Promise.all([modern.listTools(), legacy.listTools()]);
      expect(modernTools.tools.map((t) => t.name).sort()).toEqual(
        legacyTools.tools.map((t) => t.name).sort(),
      );
      expect(modernTools.tools.length).toBeGreaterThan(0);
      // A call answers the same in both eras.
      const query = { name: 'search_tools', arguments: { query: 'slow', limit: 5 } };
      const [modernSearch, legacySearch] = await Promise.all([
        modern.callTool(query),
        legacy.callTool(query),
      ]);
      expect(modernSearch.isError).toBeFalsy();
      expect((modernSearch.structuredContent as { tools: unknown[] }).tools.length).toBeGreaterThan(0);
      expect(modernSearch.structuredContent).toEqual(legacySearch.structuredContent);
    } finally {
      await Promise.allSettled([modern.close(), legacy.close()]);
    }
  });

  it('serves the 2026-07-28 revision on /mcp/{toolset} too, with the toolset scope', async () => {
    const response = await post(
      `${gateway.url}/mcp/none-such`,
      discover(1),
      modernHeaders('server/discover'),
    );
    // An unknown toolset is refused before either wire serves it.
    expect(response.status).toBe(404);
  });

  it('answers server/discover without a session and opens none', async () => {
    const response = await post(`${gateway.url}/mcp`, discover(7), modernHeaders('server/discover'));
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBeNull();
    const body = (await response.json()) as {
      id: number;
      result: { supportedVersions: string[]; capabilities: { tools?: unknown }; ttlMs: number };
    };
    expect(body.id).toBe(7);
    expect(body.result.supportedVersions).toContain(MODERN);
    expect(body.result.capabilities.tools).toEqual({ listChanged: true });
    expect(typeof body.result.ttlMs).toBe('number');
  });

  it('refuses a 2026-07-28 request without its MCP-Protocol-Version header (-32020, 400)', async () => {
    const response = await post(`${gateway.url}/mcp`, discover(8));
    expect(response.status).toBe(400);
    const body = (await response.json()) as { id: number; error: { code: number } };
    expect(body).toMatchObject({ id: 8, error: { code: -32020 } });
  });

  it('refuses a 2026-07-28 request whose Mcp-Method header contradicts its body', async () => {
    const response = await post(`${gateway.url}/mcp`, listTools(3), modernHeaders('tools/call'));
    expect(response.status).toBe(400);
    const body = (await response.json()) as { id: number; error: { code: number } };
    expect(body.id).toBe(3);
    expect(body.error.code).toBe(-32020);
  });

  it('serves a 2025 client that accepts only application/json with JSON bodies', async () => {
    const json = { accept: 'application/json' };
    const opened = await post(
      `${gateway.url}/mcp`,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'json', version: '1' },
        },
      },
      json,
    );
    expect(opened.status).toBe(200);
    expect(opened.headers.get('content-type')).toContain('application/json');
    const session = opened.headers.get('mcp-session-id');
    expect(session).toBeTruthy();
    expect(((await opened.json()) as { result: { protocolVersion: string } }).result.protocolVersion).toBe(
      '2025-11-25',
    );
    const headers = { ...json, 'mcp-session-id': session as string, 'mcp-protocol-version': '2025-11-25' };
    const initialized = await post(
      `${gateway.url}/mcp`,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      headers,
    );
    expect(initialized.status).toBe(202);
    const listed = await post(`${gateway.url}/mcp`, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, headers);
    expect(listed.status).toBe(200);
    expect(listed.headers.get('content-type')).toContain('application/json');
    const body = (await listed.json()) as { id: number; result: { tools: unknown[] } };
    expect(body.id).toBe(2);
    expect(body.result.tools.length).toBeGreaterThan(0);
  });

  it('lets a 2025 client resume a lost stream with Last-Event-ID: the rest of the call arrives', async () => {
    const both = { accept: 'application/json, text/event-stream' };
    const opened = await post(
      `${gateway.url}/mcp`,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'resume', version: '1' },
        },
      },
      both,
    );
    const session = opened.headers.get('mcp-session-id') as string;
    await opened.text();
    const headers = { ...both, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await (
      await post(`${gateway.url}/mcp`, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)
    ).text();
    const call = await post(
      `${gateway.url}/mcp`,
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: {
          name: 'run_tool',
          arguments: { tool_id: 'fixture:wait', args: { ms: 600 } },
          _meta: { progressToken: 'p' },
        },
      },
      headers,
    );
    // Read the first event, then drop the stream as a flaky network would.
    const reader = (call.body as ReadableStream<Uint8Array>).getReader();
    let first = '';
    while (!/\n\n/.test(first)) first += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    const lastEventId = /^id: ?(.+)$/m.exec(first)?.[1];
    expect(lastEventId).toBeTruthy();
    // The server learns that the stream was dropped when the connection closes, which can come
    // after this request: until then it answers 409 (the stream still has its connection), and a
    // client tries again.
    const resume = () =>
      fetch(`${gateway.url}/mcp`, {
        headers: { ...headers, accept: 'text/event-stream', 'last-event-id': lastEventId as string },
      });
    let resumed = await resume();
    for (let tries = 0; resumed.status === 409 && tries < 40; tries++) {
      await resumed.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, 25));
      resumed = await resume();
    }
    expect(resumed.status).toBe(200);
    const rest = new TextDecoder();
    const streamed = (resumed.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while (!text.includes('"id":2')) {
      const { value, done } = await streamed.read();
      if (done) break;
      text += rest.decode(value);
    }
    await streamed.cancel();
    // The answer to the call, sent after the stream was lost, came on the resumed one.
    expect(text).toContain('"id":2');
    expect(text).toContain('"result"');
  });

  it('keeps refusing a 2025 request without a session', async () => {
    const response = await post(`${gateway.url}/mcp`, {
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/list',
      params: {},
    });
    expect(response.status).toBe(400);
  });
});

function envelope(): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
}

function modernHeaders(method: string): Record<string, string> {
  return { 'mcp-protocol-version': MODERN, 'mcp-method': method };
}

function discover(id: number): unknown {
  return { jsonrpc: '2.0', id, method: 'server/discover', params: { _meta: envelope() } };
}

function listTools(id: number): unknown {
  return { jsonrpc: '2.0', id, method: 'tools/list', params: { _meta: envelope() } };
}

/** A JSON-RPC POST as a client of either era sends it. */
function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, mcpPost(body, headers));
}
