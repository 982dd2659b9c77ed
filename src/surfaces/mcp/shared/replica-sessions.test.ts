import { Server } from '@modelcontextprotocol/server';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolScope } from '../../../composition/tool-scope.js';
import { silentLogger } from '../../../foundation/ports/logger.js';
import { InMemoryEventStore } from '../in-memory-event-store.js';
import type { McpSessionFactory, SessionContext } from '../session-factory.js';
import { StreamableHttpSessions } from '../streamable-http-sessions.js';
import { inMemorySessionDirectory } from './in-memory-session-directory.js';
import { inMemoryRelayHub } from './in-memory-session-relay.js';
import type { SessionDirectory } from './session-directory.js';

/*
 * Two StreamableHttpSessions sharing an in-memory directory, event store and relay: two replicas
 * in one process, with a bare SDK server per session. What the Redis-backed gateways do end to
 * end is in test/integration/shared-sessions.test.ts; here are the paths a real Redis cannot be
 * made to take on cue (a directory that fails).
 */

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: { elicitation: {}, roots: { listChanged: true } },
    clientInfo: { name: 'unit', version: '1' },
  },
};
const alice: SessionContext = { caller: { identity: 'alice' }, scope: {} as ToolScope };

/** Session servers made so far (the latest last), to look at what a rebuild restored. */
const servers: Server[] = [];
const createSession: McpSessionFactory = () => {
  const server = new Server({ name: 'unit', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', async () => ({ tools: [] }));
  servers.push(server);
  return { server, dispose: () => {} };
};

const open: StreamableHttpSessions[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.closeAll()));
  servers.length = 0;
});

function replica(shared: {
  directory: SessionDirectory;
  events: InMemoryEventStore;
  hub: ReturnType<typeof inMemoryRelayHub>;
}) {
  const sessions = new StreamableHttpSessions({
    createSession,
    maxBodyBytes: 1 << 20,
    eventStore: shared.events,
    shared: { directory: shared.directory, relay: shared.hub.relay() },
    log: silentLogger,
  });
  open.push(sessions);
  const app = new Hono();
  app.all('/mcp', (c) => sessions.handle(c, alice));
  const post = (body: unknown, session?: string) =>
    app.request('/mcp', {
      method: 'POST',
      headers: { ...HEADERS, ...(session ? { 'mcp-session-id': session } : {}) },
      body: JSON.stringify(body),
    });
  return { sessions, post };
}

const world = () => ({
  directory: inMemorySessionDirectory({ ttlMs: 60_000 }),
  events: new InMemoryEventStore(),
  hub: inMemoryRelayHub(),
});

describe('StreamableHttpSessions shared by two replicas', () => {
  it("rebuilds on B a session opened on A, with the client's capabilities and info", async () => {
    const shared = world();
    const a = replica(shared);
    const b = replica(shared);
    const opened = await a.post(INITIALIZE);
    expect(opened.status).toBe(200);
    const id = opened.headers.get('mcp-session-id') as string;
    await opened.text();
    expect(await shared.directory.get(id)).toMatchObject({ capabilities: INITIALIZE.params.capabilities });
    const listed = await b.post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, id);
    expect(listed.status).toBe(200);
    expect(await listed.text()).toContain('"tools":[]');
    expect(b.sessions.size).toBe(1);
    const [original, rebuilt] = servers as [Server, Server];
    expect(servers).toHaveLength(2);
    expect(rebuilt.getClientCapabilities()).toEqual(original.getClientCapabilities());
    expect(rebuilt.getClientCapabilities()).toMatchObject({ elicitation: {}, roots: { listChanged: true } });
    expect(rebuilt.getClientVersion()).toEqual(INITIALIZE.params.clientInfo);
  });

  it('keeps serving a session it holds when the directory fails, and refuses one it does not hold (503)', async () => {
    const shared = world();
    let failing = false;
    const flaky: SessionDirectory = {
      put: (id, record) => (failing ? Promise.reject(new Error('down')) : shared.directory.put(id, record)),
      get: (id) => (failing ? Promise.reject(new Error('down')) : shared.directory.get(id)),
      touch: (id) => (failing ? Promise.reject(new Error('down')) : shared.directory.touch(id)),
      delete: (id) => (failing ? Promise.reject(new Error('down')) : shared.directory.delete(id)),
    };
    const a = replica({ ...shared, directory: flaky });
    const b = replica({ ...shared, directory: flaky });
    const opened = await a.post(INITIALIZE);
    const id = opened.headers.get('mcp-session-id') as string;
    await opened.text();
    failing = true;
    const here = await a.post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, id);
    expect(here.status).toBe(200);
    await here.text();
    const elsewhere = await b.post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, id);
    expect(elsewhere.status).toBe(503);
    expect(await elsewhere.json()).toMatchObject({ error: { data: { code: 'backend_unavailable' } } });
  });

  it('refuses to open a session the directory cannot record (503), holding nothing', async () => {
    const shared = world();
    const a = replica({
      ...shared,
      directory: { ...shared.directory, put: () => Promise.reject(new Error('down')) },
    });
    const opened = await a.post(INITIALIZE);
    expect(opened.status).toBe(503);
    await opened.text();
    expect(a.sessions.size).toBe(0);
  });

  it('answers 404 on a replica for a session the directory does not know, even one it held', async () => {
    const shared = world();
    const a = replica(shared);
    const opened = await a.post(INITIALIZE);
    const id = opened.headers.get('mcp-session-id') as string;
    await opened.text();
    await shared.directory.delete(id);
    const after = await a.post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, id);
    expect(after.status).toBe(404);
    await after.text();
    expect(a.sessions.size).toBe(0);
  });
});
