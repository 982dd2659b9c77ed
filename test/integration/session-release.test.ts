import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/app/gateway.js';
import { faultyServer, waitFor } from '../support/fixture-servers.js';
import { gatewayFrom } from '../support/in-process-gateway.js';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
};

const open: Gateway[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((g) => g.close()));
});

async function served(raw: Record<string, unknown> = {}) {
  const gateway = await gatewayFrom(raw);
  open.push(gateway);
  const { url } = await gateway.serveHttp('127.0.0.1', 0);
  return { gateway, url };
}

/** Catalog listeners: one per live MCP session server (each subscribes for tools/list_changed). */
function listeners(gateway: Gateway): number {
  return gateway.catalog.listenerCount;
}

describe('per-session objects are released on every path', () => {
  it('a refused initialize (406 wrong Accept, 415 wrong Content-Type) leaves no session server behind', async () => {
    const { gateway, url } = await served();
    const before = listeners(gateway);
    const refusals: Promise<number>[] = [];
    for (let i = 0; i < 25; i++) {
      refusals.push(
        fetch(`${url}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'text/plain' },
          body: JSON.stringify(INITIALIZE),
        }).then(async (r) => {
          await r.text();
          return r.status;
        }),
        fetch(`${url}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'text/plain', accept: 'application/json, text/event-stream' },
          body: JSON.stringify(INITIALIZE),
        }).then(async (r) => {
          await r.text();
          return r.status;
        }),
      );
    }
    const statuses = await Promise.all(refusals);
    expect(new Set(statuses)).toEqual(new Set([406, 415]));
    expect(listeners(gateway)).toBe(before);
  });

  it('an initialize that is not valid JSON-RPC after all leaves nothing behind', async () => {
    const { gateway, url } = await served();
    const before = listeners(gateway);
    // A batch with two initialize requests: the transport refuses it (400).
    const response = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify([INITIALIZE, { ...INITIALIZE, id: 2 }]),
    });
    await response.text();
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(listeners(gateway)).toBe(before);
  });

  it('DELETE, idle expiry and a legacy SSE disconnect release the session', async () => {
    const { gateway, url } = await served({ http: { sessionIdleMs: 300 } });
    const before = listeners(gateway);

    const deleted = new Client({ name: 'deleted', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`));
    await deleted.connect(transport);
    expect(listeners(gateway)).toBe(before + 1);
    await transport.terminateSession();
    await deleted.close();
    await waitFor('the deleted session to be released', () => listeners(gateway) === before);

    // Abandoned: the client leaves without DELETE; the idle expiry ends it.
    const abandoned = new Client({ name: 'abandoned', version: '1' });
    await abandoned.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
    expect(listeners(gateway)).toBe(before + 1);
    await waitFor('the idle session to expire', () => listeners(gateway) === before, 10_000);

    const legacy = new Client({ name: 'legacy', version: '1' });
    await legacy.connect(new SSEClientTransport(new URL(`${url}/sse`)));
    expect(listeners(gateway)).toBe(before + 1);
    await legacy.close();
    await waitFor('the SSE session to be released', () => listeners(gateway) === before);
  });

  it('an unknown session id or another endpoint opens nothing', async () => {
    const { gateway, url } = await served();
    const before = listeners(gateway);
    for (const sessionId of ['nope', 'x'.repeat(200)]) {
      const response = await fetch(`${url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': sessionId,
        },
        body: JSON.stringify(INITIALIZE),
      });
      await response.text();
      expect(response.status).toBe(404);
    }
    expect(listeners(gateway)).toBe(before);
  });

  it('idle expiry never ends a session while a call of its is in flight, and ends it after', async () => {
    const { gateway, url } = await served({
      http: { sessionIdleMs: 300 },
      exposure: 'flat',
      servers: { f: faultyServer() },
    });
    await gateway.whenReady();
    const before = listeners(gateway);
    const client = new Client({ name: 'patient', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
    // Five idle periods long: a session expired mid-call would never get its answer.
    const result = await client.callTool({ name: 'f__sleep', arguments: { ms: 1500 } });
    expect(result.isError).toBeFalsy();
    expect(listeners(gateway)).toBe(before + 1);
    await waitFor('the idle session to expire', () => listeners(gateway) === before, 10_000);
    await client.close();
  });
});
