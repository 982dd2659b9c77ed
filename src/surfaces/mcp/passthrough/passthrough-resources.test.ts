import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { inMemoryServer } from '../../../../test/support/in-memory-mcp.js';
import {
  InMemoryRelay,
  type PassthroughSession,
  passthroughSession,
  settle,
} from '../../../../test/support/in-memory-relay.js';

/** A downstream server with one resource, one template, and subscriptions. */
function resourceServer(label: string) {
  return inMemoryServer({ resources: { subscribe: true, listChanged: true } }, (server, received) => {
    server.setRequestHandler('resources/list', async () => ({
      resources: [{ uri: 'file:///readme', name: 'readme' }],
    }));
    server.setRequestHandler('resources/templates/list', async () => ({
      resourceTemplates: [{ uriTemplate: 'notes://{id}', name: 'note' }],
    }));
    server.setRequestHandler('resources/read', async (request) => {
      received.push({ method: 'resources/read', params: request.params });
      if (request.params.uri === 'file:///missing')
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'no such file');
      return { contents: [{ uri: request.params.uri, text: `${label}: ${request.params.uri}` }] };
    });
    for (const method of ['resources/subscribe', 'resources/unsubscribe'] as const)
      server.setRequestHandler(method, async () => ({}));
  });
}

const sessions: PassthroughSession[] = [];
const relays: InMemoryRelay[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
  await Promise.all(relays.splice(0).map((r) => r.disconnect()));
});

async function twoServers() {
  const a = await InMemoryRelay.connect('a', resourceServer('A'));
  const b = await InMemoryRelay.connect('b', resourceServer('B'));
  relays.push(a, b);
  const session = await passthroughSession([
    { server: a, prefix: true },
    { server: b, prefix: true },
  ]);
  sessions.push(session);
  return { a, b, session };
}

describe('passthrough resources', () => {
  it('lists every server’s resources and templates, namespaced when there are several', async () => {
    const { session } = await twoServers();
    const { resources } = await session.agent.listResources();
    expect(resources).toEqual([
      { uri: 'aperture://a/file:///readme', name: 'a__readme' },
      { uri: 'aperture://b/file:///readme', name: 'b__readme' },
    ]);
    const { resourceTemplates } = await session.agent.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      'aperture://a/notes://{id}',
      'aperture://b/notes://{id}',
    ]);
  });

  it('reads from the server the URI names, with its own URI, and names the contents as asked', async () => {
    const { session } = await twoServers();
    const read = await session.agent.readResource({ uri: 'aperture://b/file:///readme' });
    expect(read.contents).toEqual([{ uri: 'aperture://b/file:///readme', text: 'B: file:///readme' }]);
  });

  it('keeps a single server’s URIs as they are, and routes a template match to it', async () => {
    const a = await InMemoryRelay.connect('a', resourceServer('A'));
    relays.push(a);
    const session = await passthroughSession([{ server: a, prefix: true }]);
    sessions.push(session);
    expect((await session.agent.listResources()).resources[0]?.uri).toBe('file:///readme');
    const read = await session.agent.readResource({ uri: 'notes://7' });
    expect(read.contents[0]).toEqual({ uri: 'notes://7', text: 'A: notes://7' });
  });

  it('answers -32602 for a URI no server serves, and passes a server’s own error on', async () => {
    const { session } = await twoServers();
    await expect(session.agent.readResource({ uri: 'aperture://zz/file:///x' })).rejects.toMatchObject({
      code: ProtocolErrorCode.InvalidParams,
      message: expect.stringContaining('Resource not found'),
    });
    await expect(session.agent.readResource({ uri: 'aperture://a/file:///missing' })).rejects.toMatchObject({
      code: ProtocolErrorCode.InvalidParams,
      message: expect.stringContaining('no such file'),
    });
  });

  it('relays updates of subscribed URIs only, renamed as listed; unsubscribing ends them', async () => {
    const { a, b, session } = await twoServers();
    await session.agent.subscribeResource({ uri: 'aperture://a/file:///readme' });
    expect(a.subscriptions).toEqual(['+file:///readme']);
    a.emit('notifications/resources/updated', { uri: 'file:///readme' });
    b.emit('notifications/resources/updated', { uri: 'file:///readme' });
    await settle();
    expect(session.received).toEqual([
      { method: 'notifications/resources/updated', params: { uri: 'aperture://a/file:///readme' } },
    ]);
    await session.agent.unsubscribeResource({ uri: 'aperture://a/file:///readme' });
    expect(a.subscriptions).toEqual(['+file:///readme', '-file:///readme']);
    a.emit('notifications/resources/updated', { uri: 'file:///readme' });
    await settle();
    expect(session.received).toHaveLength(1);
  });

  it('passes list changes on, and on close ends its subscriptions and stops listening', async () => {
    const { a, session } = await twoServers();
    await session.agent.subscribeResource({ uri: 'aperture://a/file:///readme' });
    a.emit('notifications/resources/list_changed');
    await settle();
    expect(session.received.map((n) => n.method)).toEqual(['notifications/resources/list_changed']);
    session.passthrough.close();
    await settle();
    expect(a.subscriptions).toEqual(['+file:///readme', '-file:///readme']);
    expect(a.listening).toBe(0);
  });

  it('names the resources of a tool result as listed', async () => {
    const { session } = await twoServers();
    const result = session.passthrough.toolResult(
      {
        id: 'b:t',
        namespace: 'b',
        name: 't',
        description: '',
        inputSchema: {},
        annotations: {},
        tags: [],
        metadata: { extra: {} },
        examples: [],
        origin: { sourceId: 'mcp:b', kind: 'mcp', originalName: 't' },
      } as never,
      { content: [{ type: 'resource_link', uri: 'file:///readme', name: 'readme' }] },
    );
    expect(result.content[0]).toMatchObject({ uri: 'aperture://b/file:///readme' });
  });
});
