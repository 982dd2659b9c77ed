import type { Client } from '@modelcontextprotocol/client';
import { ProtocolError } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { inMemoryConnection, inMemoryServer } from '../../../test/support/in-memory-mcp.js';
import { makeTool } from '../../../test/support/test-tools.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import type { ExecutionContext } from '../../foundation/ports/tool-backend.js';
import { DownstreamBackend, type DownstreamBackendOptions } from './downstream-backend.js';
import type { Connection } from './open-connection.js';

const tool = makeTool('files:read', {
  origin: { sourceId: 'mcp:files', kind: 'mcp', originalName: 'read_file' },
});

function context(overrides: Partial<ExecutionContext> = {}): ExecutionContext {
  return {
    signal: new AbortController().signal,
    callId: 'c1',
    caller: { identity: 'alice' },
    progress: () => {},
    log: silentLogger,
    ...overrides,
  };
}

/** What an HTTP server that restarted answers a request of the session it forgot. */
const sessionLost = () => Object.assign(new Error('Session not found'), { code: 404 });

const open: Connection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

/** A backend whose calls go to an in-memory server answering `tools/call` with `answer`. */
async function backendOn(
  answer: (name: string, args: unknown) => Promise<object>,
  more: Partial<DownstreamBackendOptions> = {},
) {
  const downstream = inMemoryServer({ tools: {} }, (server, received) => {
    server.setRequestHandler('tools/call', async (request) => {
      received.push({ method: 'tools/call', params: request.params });
      return answer(request.params.name, request.params.arguments) as never;
    });
  });
  const connection = await inMemoryConnection(downstream);
  open.push(connection);
  const reconnects: number[] = [];
  const backend = new DownstreamBackend({
    name: 'files',
    log: silentLogger,
    withClient: (_channel, use) => use(connection.client),
    logLevel: () => undefined,
    reconnect: async () => {
      reconnects.push(1);
    },
    incidentOf: () => 'mcp:files#7',
    ...more,
  });
  return { backend, received: downstream.received, reconnects, client: connection.client };
}

describe('DownstreamBackend', () => {
  it("calls the tool by the server's own name with the arguments, and returns its result", async () => {
    const { backend, received } = await backendOn(async () => ({ content: [{ type: 'text', text: 'hi' }] }));
    const result = await backend.execute(tool, { path: '/a' }, context());
    expect(result).toEqual({ content: [{ type: 'text', text: 'hi' }] });
    expect(received).toMatchObject([
      { method: 'tools/call', params: { name: 'read_file', arguments: { path: '/a' } } },
    ]);
  });

  it('maps an error the server answered to execution_failed naming the server', async () => {
    const { backend } = await backendOn(async () => {
      throw new ProtocolError(-32001, 'disk on fire');
    });
    await expect(backend.execute(tool, {}, context())).rejects.toMatchObject({
      code: 'execution_failed',
      message: expect.stringContaining('server "files": disk on fire'),
      details: { server: 'files', rpcCode: -32001 },
    });
  });

  it('tells the observer of each call, a tool-reported failure as execution_failed', async () => {
    const ended: unknown[] = [];
    const started: unknown[] = [];
    const { backend } = await backendOn(async () => ({ content: [], isError: true }), {
      observer: {
        start: (call) => {
          started.push(call);
          return (outcome) => ended.push(outcome);
        },
      },
    });
    await backend.execute(tool, {}, context());
    expect(started).toEqual([{ server: 'files', tool: 'read_file', callId: 'c1' }]);
    expect(ended).toEqual([{ errorCode: 'execution_failed' }]);
  });

  it('re-initialises once and retries when the server forgot the session', async () => {
    let attempts = 0;
    const { reconnects, client } = await backendOn(async () => ({ content: [] }));
    const flaky = new DownstreamBackend({
      name: 'files',
      log: silentLogger,
      withClient: async (_channel, use) => {
        attempts++;
        if (attempts === 1) throw sessionLost();
        return use(client);
      },
      logLevel: () => undefined,
      reconnect: async () => {
        reconnects.push(1);
      },
      incidentOf: () => 'x',
    });
    await expect(flaky.execute(tool, {}, context())).resolves.toEqual({ content: [] });
    expect(attempts).toBe(2);
    expect(reconnects).toHaveLength(1);
  });

  it('does not retry a call of a client session (its link is not the shared connection)', async () => {
    const { reconnects } = await backendOn(async () => ({ content: [] }));
    const backend = new DownstreamBackend({
      name: 'files',
      log: silentLogger,
      withClient: async () => {
        throw sessionLost();
      },
      logLevel: () => undefined,
      reconnect: async () => {
        reconnects.push(1);
      },
      incidentOf: () => 'x',
    });
    const channel = { key: 's' } as unknown as ExecutionContext['channel'];
    await expect(backend.execute(tool, {}, context(channel ? { channel } : {}))).rejects.toMatchObject({
      code: 'backend_unavailable',
    });
    expect(reconnects).toHaveLength(0);
  });

  it('names a closed connection after the incident of the client the call went out on', async () => {
    const seen: (Client | undefined)[] = [];
    const { client } = await backendOn(async () => ({ content: [] }));
    const backend = new DownstreamBackend({
      name: 'files',
      log: silentLogger,
      withClient: async (_channel, use) => {
        // The call goes out, then the connection closes under it.
        const pending = use(client);
        await client.close();
        return pending;
      },
      logLevel: () => undefined,
      reconnect: async () => {},
      incidentOf: (used) => {
        seen.push(used);
        return 'mcp:files#3';
      },
    });
    await expect(backend.execute(tool, {}, context())).rejects.toMatchObject({
      code: 'backend_unavailable',
      details: { server: 'files', incident: 'mcp:files#3' },
    });
    expect(seen).toEqual([client]);
  });
});
