import type { JSONRPCMessage, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import type { SessionRecord } from './session-directory.js';

/** The session record of a client's `initialize` (its params were validated by the SDK). */
export function recordOfInitialize(
  body: unknown,
  session: Pick<SessionRecord, 'owner' | 'endpoint' | 'json'> &
    Partial<Pick<SessionRecord, 'exposure'>> & { toolset?: string | undefined },
): SessionRecord {
  const params = ((body ?? {}) as { params?: Record<string, unknown> }).params ?? {};
  const { toolset, ...rest } = session;
  return {
    ...rest,
    ...(toolset !== undefined ? { toolset } : {}),
    protocolVersion: String(params.protocolVersion),
    clientInfo: (params.clientInfo ?? {}) as Record<string, unknown>,
    capabilities: (params.capabilities ?? {}) as Record<string, unknown>,
  };
}

/**
 * The record after the client's messages in `body` changed what a rebuilt session must restore
 * (its log level, its resource subscriptions); undefined when they change nothing.
 */
export function recordAfter(record: SessionRecord, body: unknown): SessionRecord | undefined {
  let changed: SessionRecord | undefined;
  for (const message of Array.isArray(body) ? body : [body]) {
    const { method, params } = (message ?? {}) as { method?: unknown; params?: Record<string, unknown> };
    if (method === 'logging/setLevel' && typeof params?.level === 'string') {
      changed = { ...(changed ?? record), logLevel: params.level };
    } else if (
      (method === 'resources/subscribe' || method === 'resources/unsubscribe') &&
      typeof params?.uri === 'string'
    ) {
      const base = changed ?? record;
      const uris = new Set(base.subscriptions ?? []);
      if (method === 'resources/subscribe') uris.add(params.uri);
      else uris.delete(params.uri);
      changed = { ...base, subscriptions: [...uris] };
    }
  }
  return changed;
}

/** A POST the gateway makes to a session's own transport (never seen on the network). */
export function internalPost(sessionId?: string): Request {
  const headers: Record<string, string> = {
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
  };
  if (sessionId !== undefined) headers['mcp-session-id'] = sessionId;
  return new Request('http://aperture.internal/mcp', { method: 'POST', headers });
}

/**
 * Brings a fresh transport (whose session id generator gives `id`) and the server connected to it
 * to where the session `record` describes, with the SDK's public API only: the client's
 * `initialize` again (the server learns the client's capabilities and info, the transport takes the
 * id and counts as initialised), `notifications/initialized`, then the log level and the resource
 * subscriptions the client had set. The answers are the gateway's own and are discarded; a
 * subscription the server no longer accepts is dropped, as it would be on the original replica.
 */
export async function replayHandshake(
  transport: WebStandardStreamableHTTPServerTransport,
  id: string,
  record: SessionRecord,
): Promise<void> {
  const initialize: JSONRPCMessage = {
    jsonrpc: '2.0',
    id: 'aperture-rebuild',
    method: 'initialize',
    params: {
      protocolVersion: record.protocolVersion,
      capabilities: record.capabilities,
      clientInfo: record.clientInfo,
    },
  };
  const answer = await transport.handleRequest(internalPost(), { parsedBody: initialize });
  const text = await answer.text();
  if (answer.status !== 200 || !text.includes('"result"') || transport.sessionId !== id)
    throw new Error(`session ${id} could not be rebuilt: ${answer.status} ${text.slice(0, 200)}`);
  const initialized = await transport.handleRequest(internalPost(id), {
    parsedBody: { jsonrpc: '2.0', method: 'notifications/initialized' },
  });
  if (initialized.status !== 202)
    throw new Error(`session ${id} could not be rebuilt: ${initialized.status}`);
  const restore: { method: string; params: Record<string, unknown> }[] = [];
  if (record.logLevel !== undefined)
    restore.push({ method: 'logging/setLevel', params: { level: record.logLevel } });
  for (const uri of record.subscriptions ?? [])
    restore.push({ method: 'resources/subscribe', params: { uri } });
  for (const [n, request] of restore.entries()) {
    const reply = await transport.handleRequest(internalPost(id), {
      parsedBody: { jsonrpc: '2.0', id: `aperture-rebuild-${n}`, ...request },
    });
    await reply.text();
  }
}
