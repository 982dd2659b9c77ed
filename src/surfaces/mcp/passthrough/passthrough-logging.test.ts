import { afterEach, describe, expect, it } from 'vitest';
import { inMemoryServer } from '../../../../test/support/in-memory-mcp.js';
import {
  InMemoryRelay,
  type PassthroughSession,
  passthroughSession,
  settle,
} from '../../../../test/support/in-memory-relay.js';

function loggingServer(logs: boolean) {
  return inMemoryServer(logs ? { logging: {} } : { tools: {} }, (server, received) => {
    if (!logs) return;
    server.setRequestHandler('logging/setLevel', async (request) => {
      received.push({ method: 'logging/setLevel', params: request.params });
      return {};
    });
  });
}

const sessions: PassthroughSession[] = [];
const relays: InMemoryRelay[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
  await Promise.all(relays.splice(0).map((r) => r.disconnect()));
});

describe('passthrough logging', () => {
  it('sets the level on every server that logs, and on no other', async () => {
    const a = await InMemoryRelay.connect('a', loggingServer(true));
    const b = await InMemoryRelay.connect('b', loggingServer(false));
    relays.push(a, b);
    const session = await passthroughSession([
      { server: a, prefix: true },
      { server: b, prefix: true },
    ]);
    sessions.push(session);
    await session.agent.setLoggingLevel('warning');
    expect(a.logLevel()).toBe('warning');
    expect(b.logLevel()).toBeUndefined();
  });

  it('relays log messages at or above the session’s level, with secrets masked', async () => {
    const a = await InMemoryRelay.connect('a', loggingServer(true));
    relays.push(a);
    const session = await passthroughSession([{ server: a, prefix: true }], {
      mask: (text) => text.replaceAll('s3cret', '***'),
    });
    sessions.push(session);
    // Before any level is set, every message goes through.
    a.emit('notifications/message', { level: 'debug', data: 'early' });
    await session.agent.setLoggingLevel('warning');
    a.emit('notifications/message', { level: 'info', data: 'dropped' });
    a.emit('notifications/message', { level: 'error', data: 'token s3cret leaked' });
    await settle();
    expect(session.received).toEqual([
      { method: 'notifications/message', params: { level: 'debug', data: 'early' } },
      { method: 'notifications/message', params: { level: 'error', data: 'token *** leaked' } },
    ]);
  });
});
