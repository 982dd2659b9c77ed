import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { InMemoryTransport, ProtocolError, Server } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { guardRequestParams } from './request-params-guard.js';

/** A server with the guard, and a raw JSON-RPC line to it. */
async function serverAndWire() {
  const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
  let called = 0;
  server.setRequestHandler('tools/list', async () => ({ tools: [] }));
  server.setRequestHandler('tools/call', async (request) => {
    called++;
    if (request.params.name === 'broken') throw new ProtocolError(-32001, 'the handler failed');
    return { content: [{ type: 'text', text: 'ran' }] };
  });
  guardRequestParams(server);
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  const answers = new Map<number, JSONRPCMessage>();
  client.onmessage = (message) => {
    if ('id' in message && typeof message.id === 'number') answers.set(message.id, message);
  };
  await server.connect(serverSide);
  await client.start();
  const send = async (id: number, method: string, params: unknown) => {
    await client.send({ jsonrpc: '2.0', id, method, params } as JSONRPCMessage);
    for (let i = 0; i < 100 && !answers.has(id); i++) await new Promise((r) => setTimeout(r, 5));
    return answers.get(id) as { error?: { code: number; message: string }; result?: unknown };
  };
  return { server, send, called: () => called };
}

describe('guardRequestParams', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => close?.());

  // Regression: `tools/call` with `name: 5` answered -32603 with the whole zod issue dump.
  it('answers a wrong-typed tools/call name with -32602 and a short message naming the field', async () => {
    const { server, send, called } = await serverAndWire();
    close = () => server.close();
    const answer = await send(1, 'tools/call', { name: 5, arguments: {} });
    expect(answer.error?.code).toBe(-32602);
    expect(answer.error?.message).toMatch(/Invalid params for tools\/call: params\.name: .*expected string/);
    expect(answer.error?.message).not.toContain('\n');
    expect(answer.error?.message.length).toBeLessThan(200);
    expect(called()).toBe(0);
  });

  it('checks every registered method, and passes well-formed requests through', async () => {
    const { server, send, called } = await serverAndWire();
    close = () => server.close();
    expect((await send(2, 'tools/call', { arguments: 'x' })).error?.code).toBe(-32602);
    expect((await send(3, 'tools/list', { cursor: 7 })).error?.message).toMatch(/params\.cursor/);
    expect((await send(4, 'initialize', { protocolVersion: 5 })).error?.code).toBe(-32602);
    const ok = await send(5, 'tools/call', { name: 'x', arguments: {} });
    expect(ok.result).toEqual({ content: [{ type: 'text', text: 'ran' }] });
    expect(called()).toBe(1);
  });

  it('leaves the failure of a handler that ran on well-formed params as it is', async () => {
    const { server, send, called } = await serverAndWire();
    close = () => server.close();
    const answer = await send(6, 'tools/call', { name: 'broken', arguments: {} });
    expect(answer.error).toMatchObject({
      code: -32001,
      message: expect.stringContaining('the handler failed'),
    });
    expect(called()).toBe(1);
  });
});
