import type { Client, Tool as McpTool, ServerCapabilities } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CatalogEntry } from '../../catalog/catalog-entry.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import type { ToolBackend } from '../../foundation/ports/tool-backend.js';
import { ToolListing } from './tool-listing.js';

const backend: ToolBackend = { execute: async () => ({}) };

/** A client whose server lists `tools()` in pages of `pageSize`; each `tools/list` request is recorded. */
function fakeClient(
  tools: () => McpTool[],
  options: { capabilities?: ServerCapabilities; pageSize?: number } = {},
) {
  const requests: { cursor?: unknown }[] = [];
  let gate: Promise<void> = Promise.resolve();
  const client = {
    getServerCapabilities: () => options.capabilities ?? { tools: {} },
    request: async (request: { params?: { cursor?: string } }) => {
      requests.push({ ...(request.params ?? {}) });
      await gate;
      const all = tools();
      const size = options.pageSize ?? all.length;
      const start = Number(request.params?.cursor ?? 0);
      const end = start + size;
      return { tools: all.slice(start, end), ...(end < all.length ? { nextCursor: String(end) } : {}) };
    },
  };
  return {
    client: client as unknown as Client,
    requests,
    /** Holds every request until the returned function is called. */
    hold: () => {
      let release = () => {};
      gate = new Promise((resolve) => {
        release = resolve;
      });
      return () => {
        gate = Promise.resolve();
        release();
      };
    },
  };
}

function tool(name: string, description = `the ${name} tool`): McpTool {
  return { name, description, inputSchema: { type: 'object' } };
}

function setup(client: Client | undefined, more: { relistIntervalMs?: number } = {}) {
  const published: CatalogEntry[][] = [];
  const warnings: unknown[] = [];
  const listing = new ToolListing({
    server: 'srv',
    sourceId: 'mcp:srv',
    namespace: 'ns',
    timeoutMs: 5000,
    listTimeoutMs: 1000,
    relistIntervalMs: more.relistIntervalMs ?? 0,
    backend,
    client: () => client,
    publish: (entries) => void published.push(entries),
    log: { ...silentLogger, warn: (obj, msg) => void warnings.push({ ...obj, msg }) },
  });
  return { listing, published, warnings };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('ToolListing', () => {
  it('lists every page and publishes the whole list as the source’s entries', async () => {
    const server = fakeClient(() => ['a', 'b', 'c', 'd', 'e'].map((n) => tool(n)), { pageSize: 2 });
    const { listing, published } = setup(server.client);
    await listing.relist();
    expect(server.requests).toEqual([{}, { cursor: '2' }, { cursor: '4' }]);
    expect(published).toHaveLength(1);
    expect(published[0]?.map((e) => e.tool.id)).toEqual(['ns:a', 'ns:b', 'ns:c', 'ns:d', 'ns:e']);
    expect(published[0]?.[0]?.backend).toBe(backend);
    expect(published[0]?.[0]?.tool).toMatchObject({
      origin: { sourceId: 'mcp:srv', kind: 'mcp', originalName: 'a' },
      metadata: { extra: { timeoutMs: 5000 } },
    });
    expect(listing.size).toBe(5);
  });

  it('keeps `a:b` and `a_b` apart: both reachable, each calling its own downstream name', async () => {
    for (const order of [
      ['a:b', 'a_b'],
      ['a_b', 'a:b'],
    ]) {
      const server = fakeClient(() => [...order.map((n) => tool(n)), tool('a b')]);
      const { listing, published } = setup(server.client);
      await listing.relist();
      const byOriginal = new Map(published[0]?.map((e) => [e.tool.origin.originalName, e.tool.id]));
      // The usable name is never changed; the rewritten ones get a hash of their original.
      expect(byOriginal.get('a_b')).toBe('ns:a_b');
      expect(byOriginal.get('a:b')).toMatch(/^ns:a_b_[0-9a-f]{8}$/);
      expect(byOriginal.get('a b')).toMatch(/^ns:a_b_[0-9a-f]{8}$/);
      expect(new Set(byOriginal.values()).size).toBe(3);
    }
    // Alone, a rewritten name keeps its plain form, as before.
    const alone = fakeClient(() => [tool('x:y')]);
    const { listing, published } = setup(alone.client);
    await listing.relist();
    expect(published[0]?.map((e) => e.tool.id)).toEqual(['ns:x_y']);
  });

  it('serves the first of two tools listed under one name and says so once', async () => {
    const server = fakeClient(() => [tool('dup', 'first'), tool('dup', 'second')]);
    const { listing, published, warnings } = setup(server.client);
    await listing.relist();
    await listing.relist();
    expect(published[1]?.map((e) => [e.tool.id, e.tool.description])).toEqual([['ns:dup', 'first']]);
    expect(warnings).toEqual([expect.objectContaining({ server: 'srv', tool: 'dup' })]);
  });

  it('publishes an empty list for a server without the tools capability, asking nothing', async () => {
    const server = fakeClient(() => [tool('a')], { capabilities: {} });
    const { listing, published } = setup(server.client);
    await listing.relist();
    expect(server.requests).toEqual([]);
    expect(published).toEqual([[]]);
    expect(listing.size).toBe(0);
  });

  it('does nothing while there is no connection', async () => {
    const { listing, published } = setup(undefined);
    await listing.relist();
    expect(published).toEqual([]);
  });

  it('keeps the entries of unchanged tools and makes new ones for changed tools', async () => {
    let tools = [tool('a'), tool('b')];
    const { listing, published } = setup(fakeClient(() => tools).client);
    await listing.relist();
    tools = [tool('a'), tool('b', 'now different'), tool('c')];
    await listing.relist();
    const [first, second] = published;
    expect(second?.[0]).toBe(first?.[0]);
    expect(second?.[1]).not.toBe(first?.[1]);
    expect(second?.[1]?.tool.description).toBe('now different');
    expect(second?.map((e) => e.tool.id)).toEqual(['ns:a', 'ns:b', 'ns:c']);
  });

  it('coalesces triggers that arrive during a listing into one more run, which sees the latest list', async () => {
    let tools = [tool('a')];
    const server = fakeClient(() => tools);
    const { listing, published } = setup(server.client);
    const release = server.hold();
    const first = listing.relist();
    const second = listing.relist();
    const third = listing.relist();
    tools = [tool('a'), tool('b')];
    release();
    await Promise.all([first, second, third]);
    expect(server.requests).toHaveLength(2);
    expect(published.map((entries) => entries.length)).toEqual([2, 2]);
  });

  it('fails a listing that never ends, naming the server, and keeps what it published before', async () => {
    let endless = false;
    const pages = fakeClient(() => (endless ? [] : [tool('a')]));
    const client = {
      ...pages.client,
      getServerCapabilities: () => ({ tools: {} }),
      request: async (request: { params?: { cursor?: string } }) =>
        endless
          ? {
              tools: [tool(`t${request.params?.cursor ?? 0}`)],
              nextCursor: String(Number(request.params?.cursor ?? 0) + 1),
            }
          : { tools: [tool('a')] },
    } as unknown as Client;
    const { listing, published, warnings } = setup(client);
    await listing.relist();
    endless = true;
    await expect(listing.relist()).rejects.toMatchObject({
      code: 'backend_unavailable',
      message: expect.stringContaining(
        'server "srv": tools/list still returned a nextCursor after 1000 pages',
      ),
    });
    expect(published).toHaveLength(1);
    expect(listing.size).toBe(1);
    listing.relistInBackground('re-listing tools failed');
    await vi.waitFor(() => expect(warnings).toHaveLength(1));
    expect(warnings[0]).toMatchObject({
      msg: 're-listing tools failed',
      err: expect.stringContaining('server "srv"'),
    });
  });

  it('re-lists on its interval a server that does not announce changes, until unscheduled', async () => {
    vi.useFakeTimers();
    const server = fakeClient(() => [tool('a')]);
    const { listing } = setup(server.client, { relistIntervalMs: 1000 });
    listing.schedule(server.client);
    await vi.advanceTimersByTimeAsync(3000);
    expect(server.requests).toHaveLength(3);
    listing.unschedule();
    await vi.advanceTimersByTimeAsync(3000);
    expect(server.requests).toHaveLength(3);
  });

  it('never polls a server that announces list changes, nor when the interval is 0', async () => {
    vi.useFakeTimers();
    const announcing = fakeClient(() => [tool('a')], { capabilities: { tools: { listChanged: true } } });
    setup(announcing.client, { relistIntervalMs: 1000 }).listing.schedule(announcing.client);
    const quiet = fakeClient(() => [tool('a')]);
    setup(quiet.client, { relistIntervalMs: 0 }).listing.schedule(quiet.client);
    await vi.advanceTimersByTimeAsync(5000);
    expect(announcing.requests).toEqual([]);
    expect(quiet.requests).toEqual([]);
  });

  it('a new schedule replaces the old one rather than adding a second timer', async () => {
    vi.useFakeTimers();
    const server = fakeClient(() => [tool('a')]);
    const { listing } = setup(server.client, { relistIntervalMs: 1000 });
    listing.schedule(server.client);
    listing.schedule(server.client);
    await vi.advanceTimersByTimeAsync(2000);
    expect(server.requests).toHaveLength(2);
    listing.unschedule();
  });
});
