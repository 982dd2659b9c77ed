import { afterEach, describe, expect, it } from 'vitest';
import { inMemoryServer } from '../../../../test/support/in-memory-mcp.js';
import {
  InMemoryRelay,
  type PassthroughSession,
  passthroughSession,
} from '../../../../test/support/in-memory-relay.js';

/** A server with a prompt and a template; with `completes`, it completes with what it was asked. */
function completingServer(completes: boolean) {
  return inMemoryServer(
    { prompts: {}, resources: {}, ...(completes ? { completions: {} } : {}) },
    (server, received) => {
      server.setRequestHandler('prompts/list', async () => ({ prompts: [{ name: 'greet' }] }));
      server.setRequestHandler('resources/list', async () => ({ resources: [] }));
      server.setRequestHandler('resources/templates/list', async () => ({
        resourceTemplates: [{ uriTemplate: 'notes://{id}', name: 'note' }],
      }));
      if (!completes) return;
      server.setRequestHandler('completion/complete', async (request) => {
        received.push({ method: 'completion/complete', params: request.params });
        const ref = request.params.ref;
        const said = ref.type === 'ref/prompt' ? ref.name : ref.uri;
        return { completion: { values: [`${said}:${request.params.argument.value}`], hasMore: false } };
      });
    },
  );
}

const sessions: PassthroughSession[] = [];
const relays: InMemoryRelay[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
  await Promise.all(relays.splice(0).map((r) => r.disconnect()));
});

async function serve(completes: boolean) {
  const a = await InMemoryRelay.connect('a', completingServer(completes));
  const b = await InMemoryRelay.connect('b', completingServer(completes));
  relays.push(a, b);
  const session = await passthroughSession([
    { server: a, prefix: true },
    { server: b, prefix: true },
  ]);
  sessions.push(session);
  return session;
}

describe('passthrough completions', () => {
  it('completes a prompt argument at the prompt’s server, under its own name', async () => {
    const session = await serve(true);
    const answer = await session.agent.complete({
      ref: { type: 'ref/prompt', name: 'b__greet' },
      argument: { name: 'who', value: 'al' },
    });
    expect(answer.completion.values).toEqual(['greet:al']);
  });

  it('completes a template argument at the template’s server, with its own URI', async () => {
    const session = await serve(true);
    const answer = await session.agent.complete({
      ref: { type: 'ref/resource', uri: 'aperture://a/notes://{id}' },
      argument: { name: 'id', value: '4' },
    });
    expect(answer.completion.values).toEqual(['notes://{id}:4']);
  });

  it('answers an empty completion for a server that offers none, without asking it', async () => {
    const session = await serve(false);
    const answer = await session.agent.complete({
      ref: { type: 'ref/prompt', name: 'a__greet' },
      argument: { name: 'who', value: 'al' },
    });
    expect(answer.completion).toEqual({ values: [], hasMore: false });
  });
});
