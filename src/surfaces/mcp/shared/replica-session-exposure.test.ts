import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { makeEntry, makeTool } from '../../../../test/support/test-tools.js';
import { Catalog } from '../../../catalog/catalog.js';
import { ToolScope } from '../../../composition/tool-scope.js';
import { ToolSearch } from '../../../discovery/tool-search.js';
import { RunPipeline } from '../../../execution/run-pipeline.js';
import { silentLogger } from '../../../foundation/ports/logger.js';
import { SchemaValidator } from '../../../foundation/schema/schema-validator.js';
import { InMemoryEventStore } from '../in-memory-event-store.js';
import { createMcpSessionServer } from '../mcp-session-server.js';
import type { McpSessionFactory } from '../session-factory.js';
import { StreamableHttpSessions } from '../streamable-http-sessions.js';
import { inMemorySessionDirectory } from './in-memory-session-directory.js';
import { inMemoryRelayHub } from './in-memory-session-relay.js';
import type { SessionDirectory } from './session-directory.js';

/*
 * Exposure `auto` decides per catalog: two replicas whose catalogs differ at a moment (a server
 * still connecting on one) decide differently. A session opened on one and rebuilt on the other
 * keeps the decision its client was shown (its shared record holds it) until the catalog of the
 * replica serving it changes. Real session servers (`createMcpSessionServer`), two replicas in
 * one process sharing an in-memory directory.
 */

const HEADERS = { 'content-type': 'application/json', accept: 'application/json' };
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'unit', version: '1' } },
};
const LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
/** auto with a budget: the few tools of a small catalog fit, a hundred do not. */
const EXPOSURE = { mode: 'auto' as const, budgetTokens: 3000 };

function tool(i: number) {
  return makeEntry(
    makeTool(`svc:read_record_${i}`, {
      description: `Read record ${i} of the service, with its owner, timestamps and labels.`,
      inputSchema: { type: 'object', properties: { id: { type: 'string', description: 'Record id.' } } },
    }),
  );
}

function catalogOf(count: number): Catalog {
  const catalog = new Catalog();
  catalog.replaceSource(
    's',
    Array.from({ length: count }, (_, i) => tool(i)),
  );
  catalog.flush();
  return catalog;
}

const open: StreamableHttpSessions[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.closeAll()));
});

/** A replica with a catalog of its own, serving sessions as the gateway does. */
function replica(shared: { directory: SessionDirectory; events: InMemoryEventStore }, catalog: Catalog) {
  const validator = new SchemaValidator();
  const pipeline = new RunPipeline({ catalog, validator });
  const scope = new ToolScope({ catalog, search: new ToolSearch(catalog), pipeline, maxChainSteps: 5 });
  const createSession: McpSessionFactory = ({ caller, scope, keepListing }) =>
    createMcpSessionServer({
      scope,
      catalog,
      validator,
      exposure: EXPOSURE,
      ...(keepListing ? { keepListing } : {}),
      serverInfo: { name: 'unit', version: '1' },
      caller,
      log: silentLogger,
    });
  const sessions = new StreamableHttpSessions({
    createSession,
    maxBodyBytes: 1 << 20,
    eventStore: shared.events,
    shared: { directory: shared.directory, relay: inMemoryRelayHub().relay() },
    log: silentLogger,
  });
  open.push(sessions);
  const app = new Hono();
  app.all('/mcp', (c) => sessions.handle(c, { caller: { identity: 'alice' }, scope }));
  const post = (body: unknown, session?: string) =>
    app.request('/mcp', {
      method: 'POST',
      headers: { ...HEADERS, ...(session ? { 'mcp-session-id': session } : {}) },
      body: JSON.stringify(body),
    });
  /** The names `tools/list` gives the session `id` on this replica. */
  const names = async (id: string): Promise<string[]> => {
    const answer = await post(LIST, id);
    expect(answer.status).toBe(200);
    const { result } = (await answer.json()) as { result: { tools: { name: string }[] } };
    return result.tools.map((t) => t.name);
  };
  return { post, names };
}

const world = () => ({
  directory: inMemorySessionDirectory({ ttlMs: 60_000 }),
  events: new InMemoryEventStore(),
});

async function opened(on: ReturnType<typeof replica>): Promise<string> {
  const answer = await on.post(INITIALIZE);
  expect(answer.status).toBe(200);
  await answer.text();
  return answer.headers.get('mcp-session-id') as string;
}

const flatNames = (names: string[]) => names.filter((name) => name.startsWith('svc__'));

describe('exposure auto of a session rebuilt on another replica', () => {
  it('keeps the flat listing chosen where it opened, until the catalog serving it changes', async () => {
    const shared = world();
    const small = replica(shared, catalogOf(3));
    const bigCatalog = catalogOf(100);
    const big = replica(shared, bigCatalog);
    // Each replica's own sessions: auto lists the small catalog flat, the big one behind the metatools.
    expect(flatNames(await small.names(await opened(small)))).toHaveLength(3);
    expect(flatNames(await big.names(await opened(big)))).toHaveLength(0);

    const id = await opened(small);
    expect(await shared.directory.get(id)).toMatchObject({ exposure: 'flat' });
    // Rebuilt on the big replica: listed flat still, that replica's tools.
    const names = await big.names(id);
    expect(names).toContain('search_tools');
    expect(flatNames(names)).toHaveLength(100);

    // The catalog changes there: auto decides again, as any session's would.
    bigCatalog.replaceSource(
      's',
      Array.from({ length: 101 }, (_, i) => tool(i)),
    );
    bigCatalog.flush();
    expect(flatNames(await big.names(id))).toHaveLength(0);
  });

  it('keeps the metatools chosen where it opened', async () => {
    const shared = world();
    const small = replica(shared, catalogOf(3));
    const big = replica(shared, catalogOf(100));
    const id = await opened(big);
    expect(await shared.directory.get(id)).toMatchObject({ exposure: 'metatools' });
    const names = await small.names(id);
    expect(names).toContain('search_tools');
    expect(flatNames(names)).toHaveLength(0);
  });

  it('lets the rebuilding replica decide for a record without a kept exposure (stored before it was)', async () => {
    const shared = world();
    const small = replica(shared, catalogOf(3));
    const big = replica(shared, catalogOf(100));
    const id = await opened(small);
    const { exposure: _kept, ...older } = (await shared.directory.get(id)) ?? { exposure: undefined };
    expect(_kept).toBe('flat');
    await shared.directory.put(id, older as Parameters<SessionDirectory['put']>[1]);
    expect(flatNames(await big.names(id))).toHaveLength(0);
  });
});
