import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { inMemoryServer } from '../../../../test/support/in-memory-mcp.js';
import {
  InMemoryRelay,
  type PassthroughSession,
  passthroughSession,
  settle,
} from '../../../../test/support/in-memory-relay.js';

/** A downstream server with prompts `names`, answering `prompts/get` with its label and args. */
function promptServer(label: string, names: string[]) {
  return inMemoryServer({ prompts: { listChanged: true } }, (server, received) => {
    server.setRequestHandler('prompts/list', async () => ({ prompts: names.map((name) => ({ name })) }));
    server.setRequestHandler('prompts/get', async (request) => {
      received.push({ method: 'prompts/get', params: request.params });
      return {
        messages: [{ role: 'user', content: { type: 'text', text: `${label}:${request.params.name}` } }],
      };
    });
  });
}

const sessions: PassthroughSession[] = [];
const relays: InMemoryRelay[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
  await Promise.all(relays.splice(0).map((r) => r.disconnect()));
});

async function serve(...servers: [string, string[], boolean][]) {
  const connected = await Promise.all(
    servers.map(async ([namespace, names, prefix]) => ({
      server: await InMemoryRelay.connect(namespace, promptServer(namespace.toUpperCase(), names)),
      prefix,
    })),
  );
  relays.push(...connected.map((s) => s.server));
  const session = await passthroughSession(connected);
  sessions.push(session);
  return { session, relays: connected.map((s) => s.server) };
}

describe('passthrough prompts', () => {
  it('prefixes prompt names like tools, unless the server has prefix: false', async () => {
    const { session } = await serve(['a', ['greet'], true], ['b', ['greet', 'bye'], false]);
    const { prompts } = await session.agent.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['a__greet', 'greet', 'bye']);
  });

  it('gets a prompt from its server under the server’s own name', async () => {
    const { session } = await serve(['a', ['greet'], true], ['b', ['greet'], true]);
    const got = await session.agent.getPrompt({ name: 'b__greet', arguments: { who: 'x' } });
    expect(got.messages[0]?.content).toEqual({ type: 'text', text: 'B:greet' });
  });

  it('keeps the first server’s prompt when two unprefixed servers name one alike', async () => {
    const { session } = await serve(['a', ['greet'], false], ['b', ['greet'], false]);
    expect((await session.agent.listPrompts()).prompts.map((p) => p.name)).toEqual(['greet']);
    const got = await session.agent.getPrompt({ name: 'greet' });
    expect(got.messages[0]?.content).toEqual({ type: 'text', text: 'A:greet' });
  });

  it('answers -32602 for a prompt no server has', async () => {
    const { session } = await serve(['a', ['greet'], true]);
    await expect(session.agent.getPrompt({ name: 'a__nope' })).rejects.toMatchObject({
      code: ProtocolErrorCode.InvalidParams,
      message: expect.stringContaining('Prompt not found: a__nope'),
    });
  });

  it('passes a list change on, and stops listening on close', async () => {
    const {
      session,
      relays: [a],
    } = await serve(['a', ['greet'], true]);
    a?.emit('notifications/prompts/list_changed');
    await settle();
    expect(session.received.map((n) => n.method)).toEqual(['notifications/prompts/list_changed']);
    session.passthrough.close();
    expect(a?.listening).toBe(0);
  });
});
