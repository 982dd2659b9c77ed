import type { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import {
  ConnectionSupervisor,
  type ConnectionSupervisorOptions,
  type DownReason,
} from './connection-supervisor.js';
import type { Connection } from './open-connection.js';

/** A connection whose client can be made to close under the supervisor. */
interface FakeConnection extends Connection {
  closed: boolean;
  drop(): void;
}

function fakeConnection(pid: number): FakeConnection {
  const client = { onclose: undefined as (() => void) | undefined } as unknown as Client;
  const connection: FakeConnection = {
    client,
    transport: 'stdio',
    pid,
    protocolVersion: '2025-06-18',
    closed: false,
    close: async () => {
      connection.closed = true;
    },
    drop: () => client.onclose?.(),
  };
  return connection;
}

/**
 * A supervisor over scripted connection attempts: each entry of `attempts` is what one `open`
 * gives (a connection, or an error to fail with); past the script, fresh connections.
 */
function supervise(
  attempts: (FakeConnection | Error)[] = [],
  more: Partial<ConnectionSupervisorOptions> = {},
) {
  const opened: FakeConnection[] = [];
  const events: string[] = [];
  let pid = 100;
  const supervisor = new ConnectionSupervisor({
    name: 's',
    sourceId: 'mcp:s',
    target: { kind: 'stdio', command: 'none', args: [], env: {} },
    clientInfo: { name: 'test', version: '1' },
    log: silentLogger,
    backoff: { minMs: 5, maxMs: 10 },
    capabilities: {},
    prepare: () => events.push('prepare'),
    establish: async (connection) => {
      events.push(`establish ${connection.pid}`);
    },
    up: (connection) => events.push(`up ${connection.pid}`),
    down: (reason: DownReason) => events.push(`down ${reason}`),
    openConnection: async (_target, options) => {
      const next = attempts.shift() ?? fakeConnection(++pid);
      if (next instanceof Error) throw next;
      options.prepare?.(next.client);
      opened.push(next);
      return next;
    },
    ...more,
  });
  made.push(supervisor);
  return { supervisor, opened, events };
}

const made: ConnectionSupervisor[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((s) => s.stop()));
});

const until = async (condition: () => boolean) => {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(condition()).toBe(true);
};

describe('ConnectionSupervisor', () => {
  it('connects in the background: prepared, established, then up', async () => {
    const { supervisor, events } = supervise([fakeConnection(1)]);
    expect(supervisor.state).toBe('connecting');
    await supervisor.firstAttempt;
    expect(supervisor.state).toBe('connected');
    expect(supervisor.connection?.pid).toBe(1);
    expect(events).toEqual(['prepare', 'establish 1', 'up 1']);
    expect(supervisor.snapshot()).toEqual({
      state: 'connected',
      failures: 0,
      transport: 'stdio',
      protocolVersion: '2025-06-18',
    });
    expect(supervisor.details().connectedAt).toMatch(/^\d{4}-/);
  });

  it('retries a failed attempt with backoff, keeping the last error until one succeeds', async () => {
    const { supervisor } = supervise([
      new Error('spawn failed'),
      new Error('still failing'),
      fakeConnection(3),
    ]);
    await supervisor.firstAttempt;
    expect(supervisor.snapshot()).toMatchObject({
      state: 'failed',
      failures: 1,
      lastError: { message: expect.stringContaining('spawn failed') },
    });
    const refused = supervisor.unavailable();
    expect(refused.code).toBe('backend_unavailable');
    expect(refused.message).toContain('server "s" is unavailable');
    expect(refused.details).toMatchObject({ server: 's', state: 'failed', incident: 'mcp:s#start' });
    await until(() => supervisor.state === 'connected');
    expect(supervisor.connection?.pid).toBe(3);
    expect(supervisor.snapshot().failures).toBe(0);
    expect(supervisor.snapshot().lastError).toBeUndefined();
  });

  it('fails an attempt whose connection cannot be established, and closes that connection', async () => {
    const first = fakeConnection(1);
    let refuse = true;
    const { supervisor } = supervise([first], {
      establish: async () => {
        if (refuse) throw new GatewayError('backend_unavailable', 'listing failed');
      },
    });
    await supervisor.firstAttempt;
    expect(supervisor.state).toBe('failed');
    expect(supervisor.connection).toBeUndefined();
    expect(first.closed).toBe(true);
    refuse = false;
    await until(() => supervisor.state === 'connected');
  });

  it('names the outage after the connection that was lost, and reconnects', async () => {
    const first = fakeConnection(1);
    const { supervisor, events } = supervise([first]);
    await supervisor.firstAttempt;
    const client = first.client;
    expect(supervisor.incidentOf(client)).toBe('mcp:s#1');
    first.drop();
    expect(events).toContain('down lost');
    expect(supervisor.state).toBe('failed');
    expect(supervisor.unavailable().details).toMatchObject({ incident: 'mcp:s#1' });
    await until(() => supervisor.state === 'connected');
    expect(supervisor.connection).not.toBe(first);
    // Connections the supervisor never opened belong to the current outage.
    expect(supervisor.incidentOf(undefined)).toBe(supervisor.unavailable().details?.incident);
  });

  it('reconnect replaces the connection at once; the old one closing is not a loss', async () => {
    const first = fakeConnection(1);
    const { supervisor, events } = supervise([first]);
    await supervisor.firstAttempt;
    await supervisor.reconnect();
    expect(first.closed).toBe(true);
    first.drop();
    expect(events.filter((e) => e.startsWith('down'))).toEqual(['down replaced']);
    expect(supervisor.state).toBe('connected');
    expect(supervisor.connection?.pid).not.toBe(1);
  });

  it('stop closes the connection and whatever else it is given, and refuses reconnect after', async () => {
    const first = fakeConnection(1);
    const { supervisor, events } = supervise([first]);
    await supervisor.firstAttempt;
    let links = 0;
    await supervisor.stop(async () => {
      links++;
    });
    expect(supervisor.state).toBe('stopped');
    expect(first.closed).toBe(true);
    expect(links).toBe(1);
    expect(events).toContain('down stopped');
    await expect(supervisor.reconnect()).rejects.toThrow(/stopped/);
  });

  it('abandons an attempt in flight at stop: its connection is closed, never used', async () => {
    let release: (connection: FakeConnection) => void = () => {};
    const late = fakeConnection(9);
    const { supervisor, events } = supervise([], {
      openConnection: () => new Promise<Connection>((resolve) => (release = resolve)),
    });
    const stopping = supervisor.stop();
    release(late);
    await stopping;
    expect(late.closed).toBe(true);
    expect(supervisor.connection).toBeUndefined();
    expect(events).not.toContain('up 9');
  });

  it('a server waiting for a login says so rather than "unavailable"', async () => {
    const login = new GatewayError('auth_required', 'server "s" needs a login', {
      details: { command: 'aperture login s' },
    });
    const { supervisor } = supervise([login]);
    await supervisor.firstAttempt;
    const refused = supervisor.unavailable();
    expect(refused.code).toBe('auth_required');
    expect(refused.details).toEqual({ command: 'aperture login s' });
  });
});
