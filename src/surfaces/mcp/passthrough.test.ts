import { afterEach, describe, expect, it } from 'vitest';
import { inMemoryServer } from '../../../test/support/in-memory-mcp.js';
import {
  InMemoryRelay,
  type PassthroughSession,
  passthroughSession,
  settle,
} from '../../../test/support/in-memory-relay.js';

const sessions: PassthroughSession[] = [];
const relays: InMemoryRelay[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
  await Promise.all(relays.splice(0).map((r) => r.disconnect()));
});

describe('servePassthrough', () => {
  it('tells each server of the client’s roots change, on the session’s own connection', async () => {
    const a = await InMemoryRelay.connect('a', inMemoryServer({ tools: {} }));
    const b = await InMemoryRelay.connect('b', inMemoryServer({ tools: {} }));
    relays.push(a, b);
    const session = await passthroughSession(
      [
        { server: a, prefix: true },
        { server: b, prefix: true },
      ],
      { agentCapabilities: { roots: { listChanged: true } } },
    );
    sessions.push(session);
    await session.agent.sendRootsListChanged();
    await settle();
    expect(a.sessionNotifications).toEqual(['notifications/roots/list_changed']);
    expect(b.sessionNotifications).toEqual(['notifications/roots/list_changed']);
  });

  it('detaches every capability from the servers on close', async () => {
    const a = await InMemoryRelay.connect('a', inMemoryServer({ tools: {} }));
    relays.push(a);
    const session = await passthroughSession([{ server: a, prefix: true }]);
    sessions.push(session);
    expect(a.listening).toBeGreaterThan(0);
    session.passthrough.close();
    expect(a.listening).toBe(0);
    a.emit('notifications/resources/list_changed');
    a.emit('notifications/message', { level: 'error', data: 'x' });
    await settle();
    expect(session.received).toEqual([]);
  });
});
