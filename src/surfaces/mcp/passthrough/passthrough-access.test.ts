import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { inMemoryServer } from '../../../../test/support/in-memory-mcp.js';
import {
  InMemoryRelay,
  type PassthroughSession,
  passthroughSession,
  settle,
} from '../../../../test/support/in-memory-relay.js';
import { GatewayError } from '../../../foundation/model/gateway-error.js';
import type { PassthroughAccess } from './passthrough-access.js';

/** A downstream server with one prompt, one resource and one template, answering with its label. */
function downstream(label: string) {
  return inMemoryServer(
    { prompts: { listChanged: true }, resources: { subscribe: true, listChanged: true } },
    (server) => {
      server.setRequestHandler('prompts/list', async () => ({ prompts: [{ name: 'greet' }] }));
      server.setRequestHandler('prompts/get', async (request) => ({
        messages: [{ role: 'user', content: { type: 'text', text: `${label}:${request.params.name}` } }],
      }));
      server.setRequestHandler('resources/list', async () => ({
        resources: [{ uri: 'file:///readme', name: 'readme' }],
      }));
      server.setRequestHandler('resources/templates/list', async () => ({
        resourceTemplates: [{ uriTemplate: 'notes://{id}', name: 'note' }],
      }));
      server.setRequestHandler('resources/read', async (request) => ({
        contents: [{ uri: request.params.uri, text: `${label}: ${request.params.uri}` }],
      }));
      for (const method of ['resources/subscribe', 'resources/unsubscribe'] as const)
        server.setRequestHandler(method, async () => ({}));
    },
  );
}

const sessions: PassthroughSession[] = [];
const relays: InMemoryRelay[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
  await Promise.all(relays.splice(0).map((r) => r.disconnect()));
});

/** Servers `a` and `b`; the session sees `a` only, and its gate notes what passes. */
async function confined(gate?: PassthroughAccess['gate']) {
  const a = await InMemoryRelay.connect('a', downstream('A'));
  const b = await InMemoryRelay.connect('b', downstream('B'));
  relays.push(a, b);
  const gated: { server: string; method: string; args: Record<string, unknown> }[] = [];
  const access: PassthroughAccess = {
    sees: (server) => server.namespace === 'a',
    gate:
      gate ??
      ((server, method, args, extra, run) => {
        gated.push({ server: server.namespace, method, args });
        return run(extra.mcpReq.signal);
      }),
  };
  const session = await passthroughSession(
    [
      { server: a, prefix: true },
      { server: b, prefix: true },
    ],
    { access },
  );
  sessions.push(session);
  return { session, gated, a, b };
}

async function rejection(promise: Promise<unknown>) {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: Error & { code: number; data?: unknown }) => error,
  );
}

describe('passthrough access', () => {
  it('lists only the prompts, resources and templates of the servers the session sees', async () => {
    const { session } = await confined();
    const { prompts } = await session.agent.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['a__greet']);
    const { resources } = await session.agent.listResources();
    // Named as with both servers: the same URIs an unconfined session sees.
    expect(resources.map((r) => r.uri)).toEqual(['aperture://a/file:///readme']);
    const { resourceTemplates } = await session.agent.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['aperture://a/notes://{id}']);
  });

  it('passes reads, gets and subscriptions of a seen server through the gate', async () => {
    const { session, gated } = await confined();
    const read = await session.agent.readResource({ uri: 'aperture://a/file:///readme' });
    expect(read.contents[0]).toMatchObject({ uri: 'aperture://a/file:///readme', text: 'A: file:///readme' });
    const got = await session.agent.getPrompt({ name: 'a__greet', arguments: { who: 'x' } });
    expect(got.messages[0]?.content).toMatchObject({ text: 'A:greet' });
    await session.agent.subscribeResource({ uri: 'aperture://a/notes://7' });
    expect(gated).toEqual([
      { server: 'a', method: 'resources/read', args: { uri: 'aperture://a/file:///readme' } },
      { server: 'a', method: 'prompts/get', args: { name: 'a__greet', arguments: { who: 'x' } } },
      { server: 'a', method: 'resources/subscribe', args: { uri: 'aperture://a/notes://7' } },
    ]);
  });

  it('refuses what belongs to a server the session does not see, with forbidden, and never relays it', async () => {
    const { session, gated } = await confined();
    for (const refused of [
      session.agent.readResource({ uri: 'aperture://b/file:///readme' }),
      session.agent.readResource({ uri: 'aperture://b/notes://1' }),
      session.agent.subscribeResource({ uri: 'aperture://b/file:///readme' }),
      session.agent.getPrompt({ name: 'b__greet' }),
      session.agent.complete({
        ref: { type: 'ref/prompt', name: 'b__greet' },
        argument: { name: 'x', value: '' },
      }),
    ]) {
      const error = await rejection(refused);
      expect(error.message).toMatch(/belongs to server "b", which is outside the toolsets of this caller/);
      expect(error.data).toEqual({ code: 'forbidden' });
    }
    expect(gated).toEqual([]);
  });

  it('answers a name no seen server has as not found, and a server’s own URI only from the seen ones', async () => {
    const { session } = await confined();
    const error = await rejection(session.agent.getPrompt({ name: 'nobody__greet' }));
    expect(error.code).toBe(ProtocolErrorCode.InvalidParams);
    expect(error.message).toMatch(/Prompt not found: nobody__greet/);
    // The server's own URI: routed to the one seen server that has it.
    const read = await session.agent.readResource({ uri: 'file:///readme' });
    expect(read.contents[0]).toMatchObject({ text: 'A: file:///readme' });
  });

  it('answers a refusal of the gate with the JSON-RPC error of its code', async () => {
    const { session } = await confined(async () => {
      throw new GatewayError('rate_limited', 'Rate limit reached for a:resources/read');
    });
    const error = await rejection(session.agent.readResource({ uri: 'aperture://a/file:///readme' }));
    expect(error.message).toMatch(/Rate limit reached for a:resources\/read/);
    expect(error.data).toEqual({ code: 'rate_limited' });
  });

  it('passes on list changes of the seen servers only', async () => {
    const { session, a, b } = await confined();
    b.emit('notifications/prompts/list_changed', undefined);
    b.emit('notifications/resources/list_changed', undefined);
    a.emit('notifications/resources/list_changed', undefined);
    await settle();
    expect(session.received.map((n) => n.method)).toEqual(['notifications/resources/list_changed']);
  });
});
