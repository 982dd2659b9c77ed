import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { type Context, Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolScope } from '../../composition/tool-scope.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import { type SessionContext, sessionOwner } from './session-factory.js';
import type { HeldSession, SessionHost, SessionRegistry } from './session-registry.js';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: { elicitation: {} },
    clientInfo: { name: 'contract', version: '1' },
  },
};
const alice: SessionContext = { caller: { identity: 'alice' }, scope: {} as ToolScope };
const mallory: SessionContext = { caller: { identity: 'mallory' }, scope: {} as ToolScope };

/** Runs `use` inside a request, for the registry methods that answer with a `Response`. */
async function inRequest<T>(use: (c: Context) => Promise<T>): Promise<T> {
  let result: { value: T } | undefined;
  const app = new Hono();
  app.all('/', async (c) => {
    result = { value: await use(c) };
    return c.body(null, 204);
  });
  const response = await app.request('/');
  if (!result) throw new Error(`no result (${response.status}: ${await response.text()})`);
  return result.value;
}

/** A refusal as the client sees it: the HTTP status and the JSON-RPC error's gateway code. */
async function refusal(answer: unknown): Promise<{ status: number; code: unknown }> {
  if (!(answer instanceof Response)) throw new Error('expected an error answer, got a session');
  const body = (await answer.json()) as { error?: { data?: { code?: unknown } } };
  return { status: answer.status, code: body.error?.data?.code };
}

/**
 * What every {@link SessionRegistry} does with the sessions its host holds: a session serves its
 * owner on its endpoint, anyone else is refused, an ended session is gone, and messages of a single
 * replica pass unchanged. `create(host)` gives a fresh registry over `host` (and, for a replicated
 * one, a fresh shared store); it is closed after each case.
 */
export function describeSessionRegistryContract(
  name: string,
  create: (
    host: SessionHost<HeldSession>,
  ) => Promise<SessionRegistry<HeldSession>> | SessionRegistry<HeldSession>,
): void {
  describe(`SessionRegistry contract: ${name}`, () => {
    const made: SessionRegistry<HeldSession>[] = [];
    afterEach(async () => {
      await Promise.all(made.splice(0).map((registry) => registry.close()));
    });

    /** A registry, its host's sessions, and `open` to open one the way `StreamableHttpSessions` does. */
    async function setUp() {
      const held = new Map<string, HeldSession>();
      const registry = await create({
        held: (id) => held.get(id),
        connect: async () => {
          throw new Error('the contract never rebuilds a session');
        },
        log: silentLogger,
      });
      made.push(registry);
      const open = async (id: string, context: SessionContext, endpoint: string) => {
        const session: HeldSession = {
          transport: new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => id }),
          lastSeen: Date.now(),
          owner: sessionOwner(context.caller),
          endpoint,
        };
        held.set(id, session);
        const refused = await inRequest((c) =>
          registry.opened(c, session, id, INITIALIZE, context, endpoint, false),
        );
        expect(refused).toBeUndefined();
        return session;
      };
      const owned = (id: string, context: SessionContext, endpoint: string) =>
        inRequest((c) => registry.owned(c, id, context, endpoint));
      return { held, registry, open, owned };
    }

    it('serves a session it opened to its owner, on its endpoint', async () => {
      const { open, owned } = await setUp();
      const session = await open('s1', alice, '/mcp/dev');
      expect(await owned('s1', alice, '/mcp/dev')).toBe(session);
      // Again: a lookup changes nothing.
      expect(await owned('s1', alice, '/mcp/dev')).toBe(session);
    });

    it('refuses the session to another identity with 403 forbidden', async () => {
      const { open, owned } = await setUp();
      await open('s1', alice, '/mcp');
      expect(await refusal(await owned('s1', mallory, '/mcp'))).toEqual({ status: 403, code: 'forbidden' });
    });

    it('does not know the session on another endpoint, nor an unknown id: 404', async () => {
      const { open, owned } = await setUp();
      await open('s1', alice, '/mcp/dev');
      expect(await refusal(await owned('s1', alice, '/mcp'))).toEqual({ status: 404, code: 'not_found' });
      expect(await refusal(await owned('nope', alice, '/mcp/dev'))).toEqual({
        status: 404,
        code: 'not_found',
      });
    });

    it('forgets a session its client deleted', async () => {
      const { held, registry, open, owned } = await setUp();
      await open('s1', alice, '/mcp');
      await open('s2', alice, '/mcp');
      // DELETE: the transport reports the session closed, the host lets go of it.
      held.delete('s1');
      await registry.deleted('s1');
      expect(await refusal(await owned('s1', alice, '/mcp'))).toEqual({ status: 404, code: 'not_found' });
      expect(await owned('s2', alice, '/mcp')).toBe(held.get('s2'));
    });

    it("leaves the client's requests, notifications and plain answers for this process", async () => {
      const { open, registry } = await setUp();
      const session = await open('s1', alice, '/mcp');
      const request = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
      const batch = [request, { jsonrpc: '2.0', method: 'notifications/initialized' }];
      const answer = { jsonrpc: '2.0', id: 7, result: {} };
      expect(await registry.changes('s1', session, request)).toEqual(request);
      expect(await registry.changes('s1', session, batch)).toEqual(batch);
      expect(await registry.changes('s1', session, answer)).toEqual(answer);
    });

    it('sends answers and notifications out as the server made them', async () => {
      const { registry } = await setUp();
      const answer = { jsonrpc: '2.0' as const, id: 1, result: {} };
      const notification = {
        jsonrpc: '2.0' as const,
        method: 'notifications/message',
        params: { level: 'info' },
      };
      expect(registry.outgoing(answer)).toEqual(answer);
      expect(registry.outgoing(notification)).toEqual(notification);
    });

    it('takes a long call answered, and closes, without failing', async () => {
      const { open, owned, registry } = await setUp();
      const session = await open('s1', alice, '/mcp');
      registry.answered('s1');
      registry.answered('unknown');
      expect(await owned('s1', alice, '/mcp')).toBe(session);
      await registry.close();
    });
  });
}
