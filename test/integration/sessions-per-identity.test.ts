import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/app/gateway.js';
import { gatewayFrom } from '../support/in-process-gateway.js';
import { mcpPost } from '../support/mcp-post.js';

const A = 'sessions-key-a-0123456789abcdef';
const B = 'sessions-key-b-0123456789abcdef';

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

// Regression ("Hardening, round two"): one key opened 3,000 sessions in 25 s, each a server of its
// own. Past `http.maxSessionsPerIdentity` a new session is refused; none already open is closed.
describe('http.maxSessionsPerIdentity', () => {
  let gateway: Gateway;
  let url: string;
  beforeAll(async () => {
    gateway = await gatewayFrom({
      http: { maxSessionsPerIdentity: 3 },
      auth: {
        apiKeys: [
          { name: 'a', key: A },
          { name: 'b', key: B },
        ],
      },
    });
    url = (await gateway.serveHttp('127.0.0.1', 0)).url;
  });
  afterAll(() => gateway.close());

  const open = (key: string) => fetch(`${url}/mcp`, mcpPost(initialize, { 'x-api-key': key }));

  it('refuses the identity’s next session with 429 rate_limited and retryAfterMs; its open ones and other identities serve', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const answer = await open(A);
      await answer.text();
      expect(answer.status).toBe(200);
      ids.push(answer.headers.get('mcp-session-id') ?? '');
    }
    const refused = await open(A);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = (await refused.json()) as { error: { message: string; data: { code: string } } };
    expect(body.error.data.code).toBe('rate_limited');
    expect(body.error.message).toContain('http.maxSessionsPerIdentity');

    // Another identity is not affected.
    const other = await open(B);
    await other.text();
    expect(other.status).toBe(200);

    // The open sessions still serve: nothing was closed to make room.
    for (const id of ids) {
      const listed = await fetch(
        `${url}/mcp`,
        mcpPost(
          { jsonrpc: '2.0', id: 2, method: 'tools/list' },
          { 'x-api-key': A, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
        ),
      );
      expect(listed.status).toBe(200);
      expect(await listed.text()).toContain('"tools"');
    }

    // A session closed (DELETE) frees its place.
    const closed = await fetch(`${url}/mcp`, {
      method: 'DELETE',
      headers: { 'x-api-key': A, 'mcp-session-id': ids[0] ?? '', 'mcp-protocol-version': '2025-06-18' },
    });
    expect(closed.status).toBe(200);
    const again = await open(A);
    await again.text();
    expect(again.status).toBe(200);
  });

  it('counts legacy SSE streams against the same bound', async () => {
    // Identity "a" holds 3 sessions from the test above: its stream is refused.
    const stream = await fetch(`${url}/sse`, { headers: { 'x-api-key': A, accept: 'text/event-stream' } });
    expect(stream.status).toBe(429);
    expect(((await stream.json()) as { error: { data: { code: string } } }).error.data.code).toBe(
      'rate_limited',
    );
  });
});
