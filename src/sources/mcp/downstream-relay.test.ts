import type { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { closableChannel } from '../../../test/support/closable-channel.js';
import {
  type InMemoryServer,
  inMemoryConnection,
  inMemoryServer,
} from '../../../test/support/in-memory-mcp.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { ClientChannel } from '../../foundation/ports/client-channel.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import { DownstreamRelay, SHARED_CAPABILITIES } from './downstream-relay.js';
import type { Connection } from './open-connection.js';

/** A server that takes subscriptions and log levels, noting each request. */
function subscribable(): InMemoryServer {
  return inMemoryServer(
    { resources: { subscribe: true }, logging: {}, tools: { listChanged: true } },
    (server, received) => {
      for (const method of ['resources/subscribe', 'resources/unsubscribe', 'logging/setLevel'] as const) {
        server.setRequestHandler(method, async (request) => {
          received.push({ method, params: request.params });
          return {};
        });
      }
      server.setRequestHandler('resources/list', async () => {
        received.push({ method: 'resources/list', params: {} });
        return { resources: [{ uri: 'file:///a', name: 'a' }] };
      });
    },
  );
}

const session = closableChannel;

const open: Connection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

/** A relay whose shared connection is `current` (set it with `up`), the server's state noted. */
function relayed() {
  let current: Connection | undefined;
  const changes: number[] = [];
  const relay = new DownstreamRelay({
    name: 'files',
    namespace: 'files',
    log: silentLogger,
    open: () => Promise.reject(new Error('no links in these tests')),
    connection: () => current,
    connected: () => current !== undefined,
    unavailable: () => new GatewayError('backend_unavailable', 'server "files" is unavailable: down'),
    toolsChanged: () => changes.push(1),
  });
  const up = async (downstream: InMemoryServer) => {
    const connection = await inMemoryConnection(downstream, {
      capabilities: SHARED_CAPABILITIES,
      prepare: (client) => relay.prepareShared(client),
    });
    open.push(connection);
    current = connection;
    relay.connected(connection);
    return connection;
  };
  const down = () => {
    current = undefined;
  };
  return { relay, up, down, changes };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('DownstreamRelay', () => {
  it('refuses at once while the server is down', async () => {
    const { relay } = relayed();
    let used = false;
    await expect(
      relay.withClient(undefined, async () => {
        used = true;
      }),
    ).rejects.toThrow(/unavailable: down/);
    expect(used).toBe(false);
  });

  it('runs a request of no session on the shared connection', async () => {
    const { relay, up } = relayed();
    const downstream = subscribable();
    const connection = await up(downstream);
    const listed = await relay.withClient(undefined, (client) => {
      expect(client).toBe(connection.client);
      return client.listResources();
    });
    expect(listed.resources).toEqual([{ uri: 'file:///a', name: 'a' }]);
  });

  it('shares one downstream subscription among sessions, and one log level, the most verbose', async () => {
    const { relay, up } = relayed();
    const downstream = subscribable();
    await up(downstream);
    await relay.subscription('file:///a', true);
    await relay.subscription('file:///a', true);
    const alice = session('alice');
    const bob = session('bob');
    await relay.setLogLevel(alice, 'warning');
    await relay.setLogLevel(bob, 'debug');
    expect(relay.logLevel()).toBe('debug');
    await relay.subscription('file:///a', false);
    expect(downstream.received.map((r) => r.method)).toEqual([
      'resources/subscribe',
      'logging/setLevel',
      'logging/setLevel',
    ]);
    expect(downstream.received[2]?.params).toMatchObject({ level: 'debug' });
  });

  it('asks a new connection again for what the sessions asked of the old one', async () => {
    const { relay, up, down } = relayed();
    await up(subscribable());
    await relay.subscription('file:///a', true);
    await relay.setLogLevel(session('alice'), 'info');
    down();
    const again = subscribable();
    await up(again);
    await settle();
    expect(again.received).toEqual(
      expect.arrayContaining([
        { method: 'resources/subscribe', params: expect.objectContaining({ uri: 'file:///a' }) },
        { method: 'logging/setLevel', params: expect.objectContaining({ level: 'info' }) },
      ]),
    );
  });

  it("hands the shared connection's notifications to its listeners, and tool-list changes to the listing", async () => {
    const { relay, up, changes } = relayed();
    const downstream = subscribable();
    await up(downstream);
    const heard: [string, unknown][] = [];
    const off = relay.onNotification((method, params) => heard.push([method, params]));
    await downstream.server.notification({
      method: 'notifications/resources/updated',
      params: { uri: 'file:///a' },
    });
    await downstream.server.notification({ method: 'notifications/tools/list_changed' });
    await settle();
    expect(heard).toEqual([
      ['notifications/resources/updated', { uri: 'file:///a' }],
      ['notifications/tools/list_changed', undefined],
    ]);
    expect(changes).toHaveLength(1);
    // Another gateway's notification, delivered as if heard here; then no longer listened to.
    relay.deliver('notifications/resources/updated', { uri: 'file:///b' });
    off();
    relay.deliver('notifications/resources/updated', { uri: 'file:///c' });
    expect(heard).toHaveLength(3);
    expect(heard[2]).toEqual(['notifications/resources/updated', { uri: 'file:///b' }]);
  });

  it('has no session links until a session needs one', () => {
    const { relay } = relayed();
    expect(relay.sessionLinks).toBe(0);
  });
});

/** A connection whose client speaks `version`; `sessionId` is what its transport got (a 2025 session). */
function fakeConnection(version: string, sessionId?: string): Connection & { closed: boolean } {
  const connection = {
    client: {
      getNegotiatedProtocolVersion: () => version,
      getServerCapabilities: () => ({}),
      transport: { sessionId },
    } as unknown as Client,
    transport: 'streamable-http' as const,
    closed: false,
    close: async () => {
      connection.closed = true;
    },
  };
  return connection;
}

/** A session of a 2025 client that can answer elicitation. */
function asking(key: string): ClientChannel {
  return { ...session(key), capabilities: () => ({ elicitation: {} }), sessionful: true };
}

/** A relay whose shared connection speaks `version`, its links opened by `openLink` (eras noted). */
function withLinks(version: string, openLink: () => Promise<Connection>) {
  const shared = fakeConnection(version);
  const eras: (string | undefined)[] = [];
  const relay = new DownstreamRelay({
    name: 'both',
    namespace: 'both',
    log: silentLogger,
    open: (_capabilities, _prepare, _log, era) => {
      eras.push(era);
      return openLink();
    },
    connection: () => shared,
    connected: () => true,
    unavailable: () => new GatewayError('backend_unavailable', 'down'),
    toolsChanged: () => {},
  });
  const which = (channel: ClientChannel) =>
    relay.withClient(channel, async (client) => (client === shared.client ? 'shared' : 'link'), 'ask');
  return { relay, eras, which };
}

describe('DownstreamRelay with a server of both eras', () => {
  it("puts a 2025 client's asking call to a 2026-07-28 server on a 2025 session of its own", async () => {
    const link = fakeConnection('2025-11-25', 'session-1');
    const { relay, eras, which } = withLinks('2026-07-28', async () => link);
    expect(await which(asking('s1'))).toBe('link');
    expect(eras).toEqual(['legacy']);
    expect(await which(asking('s1'))).toBe('link');
    expect(eras).toHaveLength(1);
    await relay.closeLinks();
  });

  it('keeps the calls on the shared connection (translated rounds) when the 2025 side keeps no session, and asks once', async () => {
    const stateless = fakeConnection('2025-11-25');
    const { eras, which } = withLinks('2026-07-28', async () => stateless);
    expect(await which(asking('s1'))).toBe('shared');
    expect(stateless.closed).toBe(true);
    expect(await which(asking('s2'))).toBe('shared');
    expect(eras).toEqual(['legacy']);
  });

  it('keeps the calls on the shared connection when the server refuses the 2025 handshake', async () => {
    const { eras, which } = withLinks('2026-07-28', () => Promise.reject(new Error('unsupported version')));
    expect(await which(asking('s1'))).toBe('shared');
    expect(await which(asking('s2'))).toBe('shared');
    expect(eras).toEqual(['legacy']);
  });

  it("never opens a link for a 2026-07-28 client (its rounds passed through or answered in the gateway's own), nor for a client that cannot answer", async () => {
    const { eras, which } = withLinks('2026-07-28', async () => fakeConnection('2025-11-25', 'x'));
    const direct = { ...asking('s1'), direct: {} };
    expect(await which(direct)).toBe('shared');
    expect(await which(session('s2'))).toBe('shared');
    // A call of a 2026-07-28 client answered in the gateway's own rounds (run_tool): no session.
    expect(await which({ ...asking('s3'), sessionful: false })).toBe('shared');
    expect(eras).toEqual([]);
  });

  it('opens links to a 2025 server with the era negotiated, as before', async () => {
    const { relay, eras, which } = withLinks('2025-11-25', async () => fakeConnection('2025-11-25', 'x'));
    expect(await which(asking('s1'))).toBe('link');
    expect(eras).toEqual([undefined]);
    await relay.closeLinks();
  });
});

describe('DownstreamRelay with a server whose 2026 side takes no subscriptions', () => {
  /** A 2025 link whose server takes subscriptions, its requests noted. */
  function subscribingLink(sent: string[]) {
    const link = fakeConnection('2025-11-25', 'session-1');
    Object.assign(link.client, {
      getServerCapabilities: () => ({ resources: { subscribe: true } }),
      request: async (request: { method: string; params: { uri: string } }) => {
        sent.push(`${request.method} ${request.params.uri}`);
        return {};
      },
    });
    return link;
  }

  function relayOf(link: Connection) {
    const shared = fakeConnection('2026-07-28');
    return new DownstreamRelay({
      name: 'both',
      namespace: 'both',
      log: silentLogger,
      open: async () => link,
      connection: () => shared,
      connected: () => true,
      unavailable: () => new GatewayError('backend_unavailable', 'down'),
      toolsChanged: () => {},
      linkIdleMs: 20,
    });
  }

  it('subscribes a 2025 client on its own link, kept open while it holds the subscription', async () => {
    const sent: string[] = [];
    const link = subscribingLink(sent);
    const relay = relayOf(link);
    const client = asking('s1');
    await relay.subscription('test://r', true, client);
    expect(sent).toEqual(['resources/subscribe test://r']);
    // Idle far past linkIdleMs: the link holding a subscription stays.
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(link.closed).toBe(false);
    expect(relay.sessionLinks).toBe(1);
    await relay.subscription('test://r', false, client);
    expect(sent).toEqual(['resources/subscribe test://r', 'resources/unsubscribe test://r']);
    await expect.poll(() => link.closed, { timeout: 1_000 }).toBe(true);
  });

  it('sends nothing on a link whose 2025 side takes no subscriptions either', async () => {
    const sent: string[] = [];
    const noSubscribe = fakeConnection('2025-11-25', 'session-1');
    Object.assign(noSubscribe.client, {
      request: async (request: { method: string }) => {
        sent.push(request.method);
        return {};
      },
    });
    const relay = relayOf(noSubscribe);
    await relay.subscription('test://r', true, asking('s1'));
    // Its 2025 side takes no subscriptions either: nothing sent on the link.
    expect(sent).toEqual([]);
    await relay.closeLinks();
  });
});
