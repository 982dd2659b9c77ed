import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectHttp,
  FIXTURE_CONFIG,
  type RunningGateway,
  startHttpGateway,
  structured,
} from './gateway-process.js';
import { raw } from './raw-http.js';

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

describe('HTTP surface', () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startHttpGateway(['--config', FIXTURE_CONFIG]);
  });
  afterAll(async () => {
    await gateway?.[Symbol.asyncDispose]();
  });

  /** After every bad request, a real client still gets served. */
  async function stillServing() {
    await using client = await connectHttp(gateway.url);
    expect(structured(await client.callTool({ name: 'fixture__add', arguments: { a: 1, b: 1 } }))).toEqual({
      sum: 2,
    });
  }

  it('answers health and readiness', async () => {
    const health = await fetch(`${gateway.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${gateway.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { ready: boolean }).ready).toBe(true);
  });

  it('refuses malformed JSON with 400 and a JSON-RPC parse error', async () => {
    const res = await raw(gateway.url, {
      method: 'POST',
      path: '/mcp',
      headers: MCP_HEADERS,
      body: '{"jsonrpc":',
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error).toMatchObject({ code: -32700, data: { code: 'invalid_request' } });
    await stillServing();
  });

  it('refuses a body over http.maxBodyBytes with 413 payload_too_large, declared or streamed', async () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { pad: 'x'.repeat(70_000) },
    });
    const declared = await raw(gateway.url, {
      method: 'POST',
      path: '/mcp',
      headers: MCP_HEADERS,
      body: big,
    });
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body).error.data.code).toBe('payload_too_large');
    const chunked = await raw(gateway.url, {
      method: 'POST',
      path: '/mcp',
      headers: { ...MCP_HEADERS, 'transfer-encoding': 'chunked' },
      body: big,
    });
    expect(chunked.status).toBe(413);
    await stillServing();
  });

  it('protects the loopback bind from DNS rebinding: foreign Host or Origin gets 403', async () => {
    const host = await raw(gateway.url, {
      method: 'POST',
      path: '/mcp',
      headers: { ...MCP_HEADERS, host: 'evil.example:80' },
      body: INIT,
    });
    expect(host.status).toBe(403);
    const origin = await raw(gateway.url, {
      method: 'POST',
      path: '/mcp',
      headers: { ...MCP_HEADERS, origin: 'https://evil.example' },
      body: INIT,
    });
    expect(origin.status).toBe(403);
    expect(JSON.parse(origin.body).error.code).toBe('forbidden');
    const local = await raw(gateway.url, {
      method: 'POST',
      path: '/mcp',
      headers: { ...MCP_HEADERS, origin: 'http://localhost:3000' },
      body: INIT,
    });
    expect(local.status).toBe(200);
    await stillServing();
  });

  it('answers an unknown session with 404, a request without session with 400', async () => {
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const unknown = await raw(gateway.url, {
      method: 'POST',
      path: '/mcp',
      headers: { ...MCP_HEADERS, 'mcp-session-id': 'no-such-session' },
      body: list,
    });
    expect(unknown.status).toBe(404);
    const none = await raw(gateway.url, { method: 'POST', path: '/mcp', headers: MCP_HEADERS, body: list });
    expect(none.status).toBe(400);
    const get = await raw(gateway.url, {
      method: 'GET',
      path: '/mcp',
      headers: { accept: 'text/event-stream' },
    });
    expect(get.status).toBe(400);
  });

  it('answers unknown routes with 404 and wrong methods with 405, as JSON', async () => {
    const missing = await raw(gateway.url, { path: '/nope' });
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body)).toEqual({
      success: false,
      error: { code: 'not_found', message: 'No route GET /nope' },
    });
    const put = await raw(gateway.url, { method: 'PUT', path: '/mcp', body: '{}' });
    expect(put.status).toBe(405);
    expect(JSON.parse(put.body).error.code).toBe('method_not_allowed');
  });

  it('gives each client its own session, and ends a session on DELETE', async () => {
    await using a = await connectHttp(gateway.url);
    await using b = await connectHttp(gateway.url);
    const idA = (a.transport as { sessionId?: string } | undefined)?.sessionId;
    const idB = (b.transport as { sessionId?: string } | undefined)?.sessionId;
    expect(idA).toBeTruthy();
    expect(idA).not.toBe(idB);
    const [ra, rb] = await Promise.all([
      a.callTool({ name: 'fixture__add', arguments: { a: 1, b: 2 } }),
      b.callTool({ name: 'fixture__add', arguments: { a: 10, b: 20 } }),
    ]);
    expect(structured(ra)).toEqual({ sum: 3 });
    expect(structured(rb)).toEqual({ sum: 30 });
    const del = await raw(gateway.url, {
      method: 'DELETE',
      path: '/mcp',
      headers: { 'mcp-session-id': idA! },
    });
    expect(del.status).toBe(200);
    const after = await raw(gateway.url, {
      method: 'POST',
      path: '/mcp',
      headers: { ...MCP_HEADERS, 'mcp-session-id': idA! },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(after.status).toBe(404);
  });

  it('serves older protocol versions (2025-03-26 and 2025-06-18) as well as 2025-11-25', async () => {
    for (const version of ['2025-03-26', '2025-06-18', '2025-11-25']) {
      const res = await raw(gateway.url, {
        method: 'POST',
        path: '/mcp',
        headers: MCP_HEADERS,
        body: INIT.replace('2025-11-25', version),
      });
      expect(res.status).toBe(200);
      // A 2025-11-25 stream opens with an empty priming event (its id is where a resume starts).
      const data = res.body.split('\n').find((l) => l.startsWith('data: {'));
      expect(JSON.parse(data!.slice(6)).result.protocolVersion).toBe(version);
    }
  });
});
