import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startHttpGateway } from './gateway-process.js';

/**
 * Long-lived MCP event streams get keep-alive comments (`http.heartbeatMs`, here shortened): a
 * 2025 session's GET stream, a 2026-07-28 `subscriptions/listen` stream, a legacy `/sse` stream.
 * Read as bytes: clients drop comment lines, which is the point of them. Each test gives up well
 * before the default interval (15 s) would send one, so the configured interval is what is seen.
 */

const MODERN = '2026-07-28';
const SSE = { accept: 'text/event-stream' };
const JSON_AND_SSE = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** Reads `response`'s body until `marker` shows up (resolves with what was read), then cancels it. */
async function readUntil(response: Response, marker: string): Promise<string> {
  expect(response.status).toBe(200);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let seen = '';
  try {
    while (!seen.includes(marker)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`stream ended before "${marker}": ${seen}`);
      seen += decoder.decode(value, { stream: true });
    }
    return seen;
  } finally {
    await reader.cancel().catch(() => {});
  }
}

describe('keep-alive comments on long-lived MCP streams', { timeout: 10_000 }, () => {
  let dir: string;
  let gateway: RunningGateway;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-heartbeats-'));
    const config = path.join(dir, 'aperture.yaml');
    await writeFile(config, JSON.stringify({ tools: { builtin: true }, http: { heartbeatMs: 200 } }));
    gateway = await startHttpGateway(['--config', config]);
  });

  afterAll(async () => {
    await gateway?.[Symbol.asyncDispose]();
    await rm(dir, { recursive: true, force: true });
  });

  it("on a 2025 session's GET stream", async () => {
    const url = `${gateway.url}/mcp`;
    const init = await fetch(url, {
      method: 'POST',
      headers: JSON_AND_SSE,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1.0.0' },
        },
      }),
    });
    const session = init.headers.get('mcp-session-id') as string;
    expect(session).toBeTruthy();
    await init.body?.cancel();
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await fetch(url, {
      method: 'POST',
      headers: { ...JSON_AND_SSE, ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    const stream = await fetch(url, { headers: { ...SSE, ...headers } });
    expect(await readUntil(stream, ': keepalive')).toContain(': keepalive');
  });

  it('on a 2026-07-28 subscriptions/listen stream', async () => {
    const stream = await fetch(`${gateway.url}/mcp`, {
      method: 'POST',
      headers: { ...JSON_AND_SSE, 'mcp-protocol-version': MODERN, 'mcp-method': 'subscriptions/listen' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'subscriptions/listen',
        params: {
          notifications: { toolsListChanged: true },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': MODERN,
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    const seen = await readUntil(stream, ': keepalive');
    // The stream opened as the revision says (acknowledged first), then kept alive.
    expect(seen.indexOf('notifications/subscriptions/acknowledged')).toBeGreaterThanOrEqual(0);
    expect(seen.indexOf('notifications/subscriptions/acknowledged')).toBeLessThan(
      seen.indexOf(': keepalive'),
    );
  });

  it('on a legacy /sse stream', async () => {
    const stream = await fetch(`${gateway.url}/sse`, { headers: SSE });
    const seen = await readUntil(stream, ': keepalive');
    expect(seen.indexOf('event: endpoint')).toBeGreaterThanOrEqual(0);
    expect(seen.indexOf('event: endpoint')).toBeLessThan(seen.indexOf(': keepalive'));
  });
});
