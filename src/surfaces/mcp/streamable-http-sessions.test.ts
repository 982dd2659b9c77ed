import { Server } from '@modelcontextprotocol/server';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolScope } from '../../composition/tool-scope.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import type { McpSessionFactory, SessionContext } from './session-factory.js';
import { StreamableHttpSessions } from './streamable-http-sessions.js';

/*
 * StreamableHttpSessions of one process (the local registry), with a bare SDK server per session.
 * Sessions shared by replicas: shared/replica-sessions.test.ts.
 */

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'unit', version: '1' } },
};
const alice: SessionContext = { caller: { identity: 'alice' }, scope: {} as ToolScope };
const mallory: SessionContext = { caller: { identity: 'mallory' }, scope: {} as ToolScope };

let disposed = 0;
/** Sessions whose `tools/call` is held until `release` (a long call in flight). */
let release: () => void = () => {};
const createSession: McpSessionFactory = () => {
  const server = new Server({ name: 'unit', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', async () => ({ tools: [] }));
  server.setRequestHandler('tools/call', async () => {
    await new Promise<void>((resolve) => {
      release = resolve;
    });
    return { content: [{ type: 'text', text: 'done' }] };
  });
  return { server, dispose: () => disposed++ };
};

const open: StreamableHttpSessions[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.closeAll()));
  disposed = 0;
});

function sessions(idleMs?: number) {
  const sessions = new StreamableHttpSessions({
    createSession,
    maxBodyBytes: 1 << 20,
    log: silentLogger,
    ...(idleMs === undefined ? {} : { idleMs }),
  });
  open.push(sessions);
  const app = new Hono();
  app.all('/mcp', (c) => sessions.handle(c, c.req.header('x-who') === 'mallory' ? mallory : alice));
  app.all('/mcp/dev', (c) => sessions.handle(c, alice, '/mcp/dev'));
  const request = (method: string, body?: unknown, session?: string, more: Record<string, string> = {}) =>
    app.request('/mcp', {
      method,
      headers: { ...HEADERS, ...(session ? { 'mcp-session-id': session } : {}), ...more },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const post = (body: unknown, session?: string, more?: Record<string, string>) =>
    request('POST', body, session, more);
  const initialize = async () => {
    const opened = await post(INITIALIZE);
    expect(opened.status).toBe(200);
    await opened.text();
    return opened.headers.get('mcp-session-id') as string;
  };
  return { sessions, app, post, request, initialize };
}

const LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

describe('StreamableHttpSessions (one process)', () => {
  it('opens a session on initialize and serves it by its id; nothing without one', async () => {
    const { sessions: held, post, initialize } = sessions();
    const none = await post(LIST);
    expect(none.status).toBe(400);
    expect(await none.text()).toContain('send an initialize request first');
    const id = await initialize();
    expect(held.size).toBe(1);
    const listed = await post(LIST, id);
    expect(listed.status).toBe(200);
    expect(await listed.text()).toContain('"tools":[]');
  });

  it('refuses the session to another identity (403) and does not know it on another endpoint (404)', async () => {
    const { app, post, initialize } = sessions();
    const id = await initialize();
    const foreign = await post(LIST, id, { 'x-who': 'mallory' });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ error: { data: { code: 'forbidden' } } });
    const elsewhere = await app.request('/mcp/dev', {
      method: 'POST',
      headers: { ...HEADERS, 'mcp-session-id': id },
      body: JSON.stringify(LIST),
    });
    expect(elsewhere.status).toBe(404);
  });

  it('ends a session on DELETE: its server is released and its id unknown after', async () => {
    const { sessions: held, request, post, initialize } = sessions();
    const id = await initialize();
    const deleted = await request('DELETE', undefined, id);
    expect(deleted.status).toBe(200);
    expect(held.size).toBe(0);
    expect(disposed).toBe(1);
    const after = await post(LIST, id);
    expect(after.status).toBe(404);
  });

  it('answers a client that accepts only JSON in JSON bodies', async () => {
    const { post } = sessions();
    const opened = await post(INITIALIZE, undefined, { accept: 'application/json' });
    expect(opened.headers.get('content-type')).toContain('application/json');
    const id = opened.headers.get('mcp-session-id') as string;
    await opened.text();
    const listed = await post(LIST, id, { accept: 'application/json' });
    expect(listed.headers.get('content-type')).toContain('application/json');
    expect(await listed.json()).toMatchObject({ id: 1, result: { tools: [] } });
  });

  it('releases the server of an initialize the transport refused', async () => {
    const { sessions: held, post } = sessions();
    const refused = await post(INITIALIZE, undefined, { accept: 'text/html' });
    expect(refused.status).toBe(406);
    expect(held.size).toBe(0);
    expect(disposed).toBe(1);
  });

  it('keeps a session with a call in flight past its idle time; the answer starts the idle clock', async () => {
    const { sessions: held, post, initialize } = sessions(60);
    const id = await initialize();
    const calling = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 't' } }, id);
    expect(calling.status).toBe(200);
    await new Promise((r) => setTimeout(r, 250));
    expect(held.size).toBe(1);
    release();
    expect(await calling.text()).toContain('done');
    for (let i = 0; i < 100 && held.size > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(held.size).toBe(0);
  });
});
