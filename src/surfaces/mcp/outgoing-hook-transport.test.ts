import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { InMemoryTransport, Server } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { OutgoingHookTransport } from './outgoing-hook-transport.js';

async function wired(hook: ConstructorParameters<typeof OutgoingHookTransport>[1]) {
  const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', async () => ({ tools: [] }));
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  const received: JSONRPCMessage[] = [];
  client.onmessage = (message) => received.push(message);
  const outgoing = new OutgoingHookTransport(serverSide, hook);
  await server.connect(outgoing);
  await client.start();
  const ask = async (id: number) => {
    await client.send({ jsonrpc: '2.0', id, method: 'tools/list', params: {} });
    for (let i = 0; i < 100 && !received.some((m) => 'id' in m && m.id === id); i++)
      await new Promise((r) => setTimeout(r, 5));
  };
  return { server, client, outgoing, received, ask };
}

describe('OutgoingHookTransport', () => {
  it('passes every message the server sends through the hook, which decides what goes out', async () => {
    const seen: JSONRPCMessage[] = [];
    const { server, received, ask } = await wired((message, _options, send) => {
      seen.push(message);
      return send({ ...message, tagged: true } as unknown as JSONRPCMessage);
    });
    await ask(1);
    expect(seen).toEqual([expect.objectContaining({ id: 1, result: { tools: [] } })]);
    expect(received).toEqual([expect.objectContaining({ id: 1, tagged: true })]);
    await server.close();
  });

  it('a hook that does not call send drops the message', async () => {
    const { server, received, ask } = await wired(async () => {});
    await ask(2);
    expect(received).toEqual([]);
    await server.close();
  });

  it('hands the inner transport’s messages and close to the server, and closes the inner one', async () => {
    let closed = 0;
    const { server, client, outgoing, received, ask } = await wired((m, _o, send) => send(m));
    outgoing.onclose = ((previous) => () => {
      closed++;
      previous?.();
    })(outgoing.onclose);
    await ask(3);
    expect(received).toHaveLength(1);
    await outgoing.close();
    expect(closed).toBe(1);
    // The client side saw the linked transport close too: the inner one was closed.
    await expect(client.send({ jsonrpc: '2.0', id: 4, method: 'ping' })).rejects.toThrow();
    await server.close();
  });

  it('offers the inner transport’s session id and optional features, and no others', () => {
    const inner: Transport = {
      sessionId: 'abc',
      start: async () => {},
      send: async () => {},
      close: async () => {},
      setProtocolVersion: () => {},
    };
    const outgoing = new OutgoingHookTransport(inner, (m, _o, send) => send(m));
    expect(outgoing.sessionId).toBe('abc');
    expect(outgoing.hasPerRequestStream).toBeUndefined();
    const perRequest = new OutgoingHookTransport({ ...inner, hasPerRequestStream: true }, (m, _o, send) =>
      send(m),
    );
    expect(perRequest.hasPerRequestStream).toBe(true);
    expect(typeof outgoing.setProtocolVersion).toBe('function');
    expect(outgoing.setSupportedProtocolVersions).toBeUndefined();
    expect('setScopeChallengeResolver' in outgoing).toBe(false);
    let resolver: unknown;
    const scoped = Object.assign(inner, { setScopeChallengeResolver: (r: unknown) => (resolver = r) });
    const wrapped = new OutgoingHookTransport(scoped, (m, _o, send) => send(m)) as unknown as {
      setScopeChallengeResolver(r: unknown): void;
    };
    wrapped.setScopeChallengeResolver('r');
    expect(resolver).toBe('r');
  });
});
