import type { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { listAllTools, MAX_LIST_PAGES } from './list-all-tools.js';

interface Sent {
  method: string;
  params: unknown;
  timeout: unknown;
  signal: unknown;
}

/** A client whose `tools/list` pages hold one tool each; `pages` of them, or endless when undefined. */
function client(pages: number | undefined, capabilities: object = { tools: {} }) {
  const sent: Sent[] = [];
  const fake = {
    getServerCapabilities: () => capabilities,
    request: async (
      request: { method: string; params?: { cursor?: string } },
      _schema: unknown,
      options: { timeout?: number; signal?: AbortSignal },
    ) => {
      sent.push({
        method: request.method,
        params: request.params,
        timeout: options.timeout,
        signal: options.signal,
      });
      const page = Number(request.params?.cursor ?? 0);
      const next = page + 1;
      return {
        tools: [{ name: `t${page}`, inputSchema: { type: 'object' } }],
        ...(pages === undefined || next < pages ? { nextCursor: String(next) } : {}),
      };
    },
  };
  return { client: fake as unknown as Client, sent };
}

describe('listAllTools', () => {
  it('follows nextCursor through every page, in order', async () => {
    const { client: c, sent } = client(3);
    const tools = await listAllTools(c, { server: 's', timeoutMs: 500 });
    expect(tools.map((t) => t.name)).toEqual(['t0', 't1', 't2']);
    expect(sent.map((s) => s.params)).toEqual([{}, { cursor: '1' }, { cursor: '2' }]);
    expect(sent.every((s) => s.method === 'tools/list' && s.timeout === 500 && s.signal === undefined)).toBe(
      true,
    );
  });

  it('asks a timeout function before each page (what is left of a deadline) and passes the signal', async () => {
    const { client: c, sent } = client(3);
    const left = [300, 200, 100];
    const signal = new AbortController().signal;
    await listAllTools(c, { server: 's', timeoutMs: () => left.shift() ?? 0, signal });
    expect(sent.map((s) => s.timeout)).toEqual([300, 200, 100]);
    expect(sent.every((s) => s.signal === signal)).toBe(true);
  });

  it('returns no tools, asking nothing, from a server without the tools capability', async () => {
    const { client: c, sent } = client(3, {});
    expect(await listAllTools(c, { server: 's', timeoutMs: 500 })).toEqual([]);
    expect(sent).toEqual([]);
  });

  it('fails a listing still paging after the limit with backend_unavailable naming the server', async () => {
    const { client: c, sent } = client(undefined);
    const error = await listAllTools(c, { server: 'runaway', timeoutMs: 500, maxPages: 5 }).catch((e) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({
      code: 'backend_unavailable',
      message:
        'server "runaway": tools/list still returned a nextCursor after 5 pages (5 tools); listing abandoned',
      details: { server: 'runaway', pages: 5, tools: 5 },
    });
    expect(sent).toHaveLength(5);
  });

  it('accepts a listing that ends on exactly the last allowed page; the default limit is 1000 pages', async () => {
    expect(MAX_LIST_PAGES).toBe(1000);
    const { client: c } = client(MAX_LIST_PAGES);
    expect(await listAllTools(c, { server: 's', timeoutMs: 500 })).toHaveLength(MAX_LIST_PAGES);
  });
});
