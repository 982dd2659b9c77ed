import { describe, expect, it } from 'vitest';
import { MemoryStateStore } from '../../foundation/ports/memory-state-store.js';
import { RegistryClient } from './registry-client.js';

/** A fetch answering from a map of paths; records what was asked. */
function fakeFetch(routes: Record<string, unknown>, asked: string[]): typeof fetch {
  return (async (input: string | URL | Request) => {
    const url = new URL(String(input));
    const path = `${url.pathname}${url.search}`;
    asked.push(path);
    const body = routes[path] ?? routes[url.pathname];
    if (body === undefined) return new Response('{"detail":"Server not found"}', { status: 404 });
    return new Response(typeof body === 'string' ? body : JSON.stringify(body), { status: 200 });
  }) as typeof fetch;
}

const doc = (name: string, version = '1.0.0') => ({ server: { name, version, description: name } });

describe('RegistryClient', () => {
  it('asks the registries in order; the first that knows a name wins; caches answers in the state store', async () => {
    const asked: string[] = [];
    const state = new MemoryStateStore();
    const client = new RegistryClient({
      registries: [
        { name: 'private', url: 'http://a' },
        { name: 'official', url: 'http://b/' },
      ],
      state,
      fetch: fakeFetch({ '/v0/servers/io.x%2Fs': doc('io.x/s') }, asked),
    });
    const hit = await client.server('io.x/s');
    expect(hit.registry).toBe('private');
    await client.server('io.x/s');
    expect(asked).toEqual(['/v0/servers/io.x%2Fs']);
    await expect(client.server('io.x/none')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('pages with the cursor and stops a cursor that comes back', async () => {
    const asked: string[] = [];
    const client = new RegistryClient({
      registries: [{ name: 'r', url: 'http://r' }],
      cacheTtlMs: 0,
      fetch: fakeFetch(
        {
          '/v0/servers?version=latest&limit=30': { servers: [doc('a')], metadata: { nextCursor: 'c1' } },
          '/v0/servers?version=latest&limit=30&cursor=c1': {
            servers: [doc('b')],
            metadata: { next_cursor: 'c1' },
          },
        },
        asked,
      ),
    });
    await expect(client.search('')).rejects.toThrow(/its cursor "c1" came back again \(a paging loop\)/);
    expect(asked).toHaveLength(2);
  });

  it('a registry answering HTML, a non-object or a different server is a backend fault naming it', async () => {
    const make = (body: unknown) =>
      new RegistryClient({
        registries: [{ name: 'r', url: 'http://r' }],
        fetch: fakeFetch({ '/v0/servers/io.x%2Fs': body, '/v0/servers': body }, []),
      });
    await expect(make('<html>').server('io.x/s')).rejects.toMatchObject({
      code: 'backend_unavailable',
      message: expect.stringContaining('registry r (http://r) does not speak the MCP Registry API'),
    });
    await expect(make([1]).server('io.x/s')).rejects.toThrow(/is not a JSON object/);
    await expect(make(doc('io.other/s')).server('io.x/s')).rejects.toThrow(/answered "io.other\/s"/);
    await expect(make({ items: [] }).search('')).rejects.toThrow(/no "servers" list/);
  });
});
