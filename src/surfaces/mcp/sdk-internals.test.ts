import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { InMemoryTransport, Server } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { requestHandlerTable } from './sdk-internals.js';

/**
 * Canary: the MCP SDK internals `sdk-internals.ts` relies on, checked against the installed SDK.
 * A failure here means an SDK update moved them: fix the adapter, not the callers.
 */
describe('MCP SDK internals (canary)', () => {
  it('Server keeps its request handlers in a Map by method (Protocol._requestHandlers)', () => {
    const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/list', async () => ({ tools: [] }));
    const table = requestHandlerTable(server);
    expect(table, 'Protocol._requestHandlers is gone or no longer a Map').toBeInstanceOf(Map);
    expect(table?.has('tools/list'), 'a registered handler is not in _requestHandlers').toBe(true);
    expect(typeof table?.get('tools/list')).toBe('function');
    // The SDK registers its own handlers (ping, initialize) in the same table.
    expect(table?.has('ping')).toBe(true);
  });

  it('reads the table on each request: a replaced entry is what answers', async () => {
    const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/list', async () => ({ tools: [] }));
    const table = requestHandlerTable(server);
    const original = table?.get('tools/list');
    if (!table || !original) throw new Error('Protocol._requestHandlers is gone');
    let wrapped = 0;
    table.set('tools/list', (request, extra) => {
      wrapped++;
      return original(request, extra);
    });
    const [client, serverSide] = InMemoryTransport.createLinkedPair();
    const answers: JSONRPCMessage[] = [];
    client.onmessage = (message) => answers.push(message);
    await server.connect(serverSide);
    await client.start();
    try {
      await client.send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
      for (let i = 0; i < 100 && answers.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
      expect(answers[0]).toMatchObject({ id: 1, result: { tools: [] } });
      expect(wrapped, 'the SDK no longer dispatches through _requestHandlers').toBe(1);
    } finally {
      await server.close();
    }
  });
});
