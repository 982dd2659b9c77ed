import type { Client } from '@modelcontextprotocol/client';
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTool } from '../../../test/support/test-tools.js';
import type { ClientChannel } from '../../foundation/ports/client-channel.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import type { ExecutionContext } from '../../foundation/ports/tool-backend.js';
import { isStreamSessionLost } from './call-failure.js';
import { ConnectionSupervisor } from './connection-supervisor.js';
import { DownstreamBackend } from './downstream-backend.js';
import type { Connection } from './open-connection.js';
import { SessionLinks } from './session-links.js';

/** A client session's call (it has a channel): recovered all the same on the shared connection. */
function context(): ExecutionContext {
  return {
    signal: new AbortController().signal,
    callId: 'c1',
    caller: { identity: 'alice' },
    progress: () => {},
    log: silentLogger,
    channel: { session: 's1' } as unknown as NonNullable<ExecutionContext['channel']>,
  };
}

const readOnly = makeTool('files:read', {
  origin: { sourceId: 'mcp:files', kind: 'mcp', originalName: 'read' },
  annotations: { readOnlyHint: true },
});
const write = makeTool('files:write', {
  origin: { sourceId: 'mcp:files', kind: 'mcp', originalName: 'write' },
  annotations: { readOnlyHint: false },
});

/** A fake SDK client whose `tools/call` does `answer`. */
function fakeClient(name: string, answer: () => Promise<unknown>): Client {
  return { name, request: answer, getNegotiatedProtocolVersion: () => '2025-06-18' } as unknown as Client;
}

/**
 * A backend whose shared connection is `old` until the server's restart is noticed, then a fresh
 * one that answers. On `old` a call fails with `failure` after the server restarted under it.
 */
function restartingServer(failure: () => Error) {
  const sent: string[] = [];
  const lost = new Set<Client>();
  const old = fakeClient('old', async () => {
    sent.push('old');
    lost.add(old); // what the supervisor learns from the connection's event stream
    throw failure();
  });
  const fresh = fakeClient('fresh', async () => {
    sent.push('fresh');
    return { content: [] };
  });
  let current = old;
  const reconnected: (Client | undefined)[] = [];
  const backend = new DownstreamBackend({
    name: 'files',
    log: silentLogger,
    withClient: async (_channel, use) => use(current),
    logLevel: () => undefined,
    reconnect: async (client) => {
      reconnected.push(client);
      current = fresh;
    },
    lostSession: (client) => lost.has(client),
    isShared: (client) => client === current || lost.has(client),
    incidentOf: () => 'mcp:files#1',
  });
  return { backend, sent, reconnected, old };
}

const closed = () => new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed');

describe('DownstreamBackend when the server restarts during a call', () => {
  it('sends a read-only call in flight once more on the new connection (a client session’s call too)', async () => {
    const { backend, sent, reconnected, old } = restartingServer(closed);
    await expect(backend.execute(readOnly, {}, context())).resolves.toEqual({ content: [] });
    expect(sent).toEqual(['old', 'fresh']);
    expect(reconnected).toEqual([old]);
  });

  it('answers a non-idempotent call in flight with a retryable backend_unavailable saying the server restarted, sent once', async () => {
    const { backend, sent } = restartingServer(closed);
    await expect(backend.execute(write, {}, context())).rejects.toMatchObject({
      code: 'backend_unavailable',
      retryable: true,
      message: expect.stringContaining('restarted during the call'),
      details: { server: 'files', restarted: true, incident: 'mcp:files#1' },
    });
    expect(sent).toEqual(['old']);
  });

  it('sends even a non-idempotent call again when the server refused it with 404 (it never ran)', async () => {
    const { backend, sent } = restartingServer(() =>
      Object.assign(new Error('Session not found'), { code: 404 }),
    );
    await expect(backend.execute(write, {}, context())).resolves.toEqual({ content: [] });
    expect(sent).toEqual(['old', 'fresh']);
  });
});

describe('ConnectionSupervisor when the server forgets the session', () => {
  const made: ConnectionSupervisor[] = [];
  afterEach(async () => {
    await Promise.all(made.splice(0).map((s) => s.stop()));
  });

  function supervise() {
    const opened: Connection[] = [];
    let pid = 0;
    const supervisor = new ConnectionSupervisor({
      name: 's',
      sourceId: 'mcp:s',
      target: { kind: 'stdio', command: 'none', args: [], env: {} },
      clientInfo: { name: 'test', version: '1' },
      log: silentLogger,
      backoff: { minMs: 5, maxMs: 10 },
      capabilities: {},
      prepare: () => {},
      establish: async () => {},
      up: () => {},
      down: () => {},
      openConnection: async () => {
        const connection: Connection = {
          client: {} as Client,
          transport: 'streamable-http',
          pid: ++pid,
          close: async () => {},
        } as unknown as Connection;
        opened.push(connection);
        return connection;
      },
    });
    made.push(supervisor);
    return { supervisor, opened };
  }

  it('re-initialises when the connection’s event stream cannot be resumed (404), once', async () => {
    const { supervisor, opened } = supervise();
    await supervisor.firstAttempt;
    const first = opened[0] as Connection;
    // What the SDK reports through onerror when resuming the stream finds the session gone.
    first.client.onerror?.(new Error('Failed to reconnect SSE stream: Failed to open SSE stream: Not Found'));
    first.client.onerror?.(new Error('Failed to reconnect SSE stream: Failed to open SSE stream: Not Found'));
    await supervisor.sessionLost(first.client);
    expect(opened).toHaveLength(2);
    expect(supervisor.connection).toBe(opened[1]);
    expect(supervisor.lostSession(first.client)).toBe(true);
    expect(supervisor.lostSession(opened[1]?.client as Client)).toBe(false);
    // Another error on the stream is not a lost session.
    opened[1]?.client.onerror?.(new Error('SSE stream disconnected: TypeError: terminated'));
    expect(opened).toHaveLength(2);
  });

  it('tells a lost session’s stream errors from others', () => {
    expect(
      isStreamSessionLost(new Error('Failed to reconnect SSE stream: Failed to open SSE stream: Not Found')),
    ).toBe(true);
    expect(isStreamSessionLost(new Error('Failed to open SSE stream: HTTP 404'))).toBe(true);
    expect(isStreamSessionLost(new Error('SSE stream disconnected: TypeError: terminated'))).toBe(false);
    expect(isStreamSessionLost(new Error('Error POSTing to endpoint: Session not found'))).toBe(false);
  });
});

describe('ConnectionSupervisor state history', () => {
  it('keeps each state change with its time and, for a failure, its reason; a failed retry is no change', async () => {
    let attempt = 0;
    const supervisor = new ConnectionSupervisor({
      name: 's',
      sourceId: 'mcp:s',
      target: { kind: 'stdio', command: 'none', args: [], env: {} },
      clientInfo: { name: 'test', version: '1' },
      log: silentLogger,
      backoff: { minMs: 5, maxMs: 10 },
      capabilities: {},
      prepare: () => {},
      establish: async () => {},
      up: () => {},
      down: () => {},
      openConnection: async () => {
        attempt++;
        if (attempt <= 2) throw new Error(`refused ${attempt}`);
        return {
          client: {} as Client,
          transport: 'stdio',
          pid: attempt,
          close: async () => {},
        } as unknown as Connection;
      },
    });
    try {
      for (let i = 0; i < 200 && supervisor.state !== 'connected'; i++)
        await new Promise((r) => setTimeout(r, 5));
      const history = supervisor.transitions();
      expect(history.map((t) => t.state)).toEqual(['connecting', 'failed', 'connected']);
      expect(history[1]?.reason).toMatch(/refused 1/);
      for (const t of history) expect(Number.isNaN(Date.parse(t.at))).toBe(false);
    } finally {
      await supervisor.stop();
    }
    expect(supervisor.transitions().at(-1)?.state).toBe('stopped');
  });
});

describe('a session’s own link when the server forgets its session', () => {
  function channel(key: string): ClientChannel {
    const self: ClientChannel = {
      key,
      get session() {
        return self;
      },
      capabilities: () => ({ sampling: {} }),
      request: async () => ({}),
      notify: async () => {},
      onClose: () => {},
    };
    return self;
  }

  function links() {
    const opened: Client[] = [];
    const closed: Client[] = [];
    const sessionLinks = new SessionLinks({
      open: async (_capabilities, prepare) => {
        const client = { n: opened.length, setRequestHandler: () => {} } as unknown as Client;
        prepare(client);
        opened.push(client);
        return {
          client,
          transport: 'streamable-http',
          close: async () => void closed.push(client),
        } as unknown as Connection;
      },
      maxLinks: 8,
      idleMs: 60_000,
      onAsked: () => {},
      log: silentLogger,
    });
    return { sessionLinks, opened, closed };
  }

  const call = (session: ClientChannel) => ({ channel: session, asked: false });

  it('drops a link the server answered 404, so the next call opens a fresh one', async () => {
    const { sessionLinks, opened, closed } = links();
    const s = channel('s1');
    await expect(
      sessionLinks.with(s, call(s), async () => {
        throw Object.assign(new Error('Session not found'), { code: 404 });
      }),
    ).rejects.toThrow(/Session not found/);
    await sessionLinks.with(s, call(s), async () => 'ok');
    expect(opened).toHaveLength(2);
    expect(closed).toEqual([opened[0]]);
  });

  it('drops a link whose event stream cannot be resumed (404), and remembers it as lost', async () => {
    const { sessionLinks, opened, closed } = links();
    const s = channel('s1');
    await sessionLinks.with(s, call(s), async () => 'ok');
    const first = opened[0] as Client;
    first.onerror?.(new Error('Failed to reconnect SSE stream: Failed to open SSE stream: Not Found'));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(sessionLinks.lostSession(first)).toBe(true);
    expect(closed).toEqual([first]);
    await sessionLinks.with(s, call(s), async () => 'ok');
    expect(opened).toHaveLength(2);
  });

  it('the backend sends a link’s refused call once more (no shared reconnect), and a lost in-flight write answers restarted', async () => {
    const lost = new Set<Client>();
    let n = 0;
    const reconnected: unknown[] = [];
    let current: Client = {} as Client;
    const linkClient = (name: string, answer: () => Promise<unknown>) => {
      current = {
        name,
        request: answer,
        getNegotiatedProtocolVersion: () => '2025-06-18',
      } as unknown as Client;
      return current;
    };
    const backendFor = (failure: () => Error) =>
      new DownstreamBackend({
        name: 'files',
        log: silentLogger,
        withClient: async (_channel, use) =>
          use(
            linkClient(`link${n}`, async () => {
              n++;
              if (n === 1) {
                const client = current;
                lost.add(client);
                throw failure();
              }
              return { content: [] };
            }),
          ),
        logLevel: () => undefined,
        reconnect: async (client) => void reconnected.push(client),
        lostSession: (client) => lost.has(client),
        isShared: () => false,
        incidentOf: () => 'mcp:files#2',
      });
    await expect(
      backendFor(() => Object.assign(new Error('Session not found'), { code: 404 })).execute(
        write,
        {},
        context(),
      ),
    ).resolves.toEqual({ content: [] });
    n = 0;
    await expect(backendFor(closed).execute(write, {}, context())).rejects.toMatchObject({
      code: 'backend_unavailable',
      details: { restarted: true },
    });
    n = 0;
    await expect(backendFor(closed).execute(readOnly, {}, context())).resolves.toEqual({ content: [] });
    expect(reconnected).toEqual([]);
  });
});
