import { describe, expect, it } from 'vitest';
import { makeSearchTool } from '../../test/support/test-tools.js';
import { Catalog } from '../catalog/catalog.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import type { Tool } from '../foundation/model/tool.js';
import { Bm25Index } from './bm25-index.js';
import type { SearchHit, SearchIndex, SearchOptions } from './search-index.js';
import { ToolSearch } from './tool-search.js';
import { VerbLexicon } from './verb-lexicon.js';

const backend = { execute: async () => null };

function entries(tools: Tool[]) {
  return tools.map((tool) => ({ tool, backend }));
}

function fixture(): { catalog: Catalog; tools: Tool[] } {
  const catalog = new Catalog({ debounceMs: 0 });
  const tools = [
    makeSearchTool({ id: 'github:create_issue', description: 'Open a new issue.' }),
    makeSearchTool({ id: 'github:close_issue', description: 'Close an issue, marking it resolved.' }),
    makeSearchTool({ id: 'jira:create_ticket', description: 'Open a ticket, like an issue.' }),
    makeSearchTool({ id: 'fs:read_file', description: 'Read a file.' }),
  ];
  catalog.replaceSource('s', entries(tools));
  return { catalog, tools };
}

/** Wraps an index and counts the calls, to check that sync is incremental. */
class CountingIndex implements SearchIndex {
  readonly strategy = 'bm25' as const;
  upserts: string[] = [];
  removes: string[] = [];
  constructor(private readonly inner: SearchIndex) {}
  get size() {
    return this.inner.size;
  }
  upsert(tool: Tool) {
    this.upserts.push(tool.id);
    this.inner.upsert(tool);
  }
  remove(id: string) {
    this.removes.push(id);
    this.inner.remove(id);
  }
  search(query: string, options: SearchOptions): SearchHit[] {
    return this.inner.search(query, options);
  }
}

describe('ToolSearch', () => {
  it('matches product names, identifiers and numbers in queries written in other languages', async () => {
    const catalog = new Catalog({ debounceMs: 0 });
    catalog.replaceSource(
      's',
      entries([
        makeSearchTool({ id: 'github:create_pull_request', description: 'Open a pull request.' }),
        makeSearchTool({ id: 'stripe:refund_payment', description: 'Refund a payment.' }),
        makeSearchTool({
          id: 'http:explain_status',
          description: 'What an HTTP status such as 404 or 503 means.',
        }),
      ]),
    );
    const search = new ToolSearch(catalog);
    const first = async (query: string) => (await search.search({ query, limit: 1 })).hits[0]?.tool.id;
    expect(await first('Erstelle einen Pull Request auf GitHub')).toBe('github:create_pull_request');
    expect(await first('用 Stripe 退款')).toBe('stripe:refund_payment');
    expect(await first('エラー503の意味は？')).toBe('http:explain_status');
    expect(await first('¿qué hace create_pull_request?')).toBe('github:create_pull_request');
  });

  it('ranks a request with data pasted into it as the request alone', async () => {
    const tools = [
      makeSearchTool({ id: 'vision:describe_image', description: 'Say what an image shows.' }),
      makeSearchTool({
        id: 'grid:ag_rows',
        description: 'Rows of an AG Grid table shown as an image: AAAA, BL, RW and LM layouts.',
      }),
      makeSearchTool({ id: 'models:lm_chat', description: 'Chat with an LM.' }),
    ];
    const catalog = new Catalog({ debounceMs: 0 });
    catalog.replaceSource('s', entries(tools));
    const blob =
      'iVBORw0KGgoAAAANSUhEUgAAAgAAAAIACAYAAAD0eNT6AAAABHNCSVQICAgIfAhkiAAAAAlwSFlzAAAN1wAADdcBQiibeAAAABl0RVh0U29mdHdhcmUAd3d3Lmlua3NjYXBlLm9yZ5vuPBoAACAASURBVHic7d132GVVef7x78';
    const query = `what does this image show? ${blob}`;
    // Read as words, the blob outweighs the request.
    const raw = new Bm25Index();
    for (const tool of tools) raw.upsert(tool);
    expect(raw.search(query, { limit: 1 })[0]?.id).not.toBe('vision:describe_image');
    const search = new ToolSearch(catalog);
    const page = await search.search({ query, limit: 3 });
    expect(page.hits[0]?.tool.id).toBe('vision:describe_image');
    const alone = await search.search({ query: 'what does this image show?', limit: 3 });
    expect(page.hits).toEqual(alone.hits);
  });

  describe('query expansion from the catalog', () => {
    function code(expandQueries?: boolean) {
      const catalog = new Catalog({ debounceMs: 0 });
      catalog.replaceSource(
        's',
        entries([
          makeSearchTool({ id: 'github:list_pull_requests', description: 'List pull requests.' }),
          makeSearchTool({ id: 'github:merge_pull_request', description: 'Merge a pull request.' }),
          makeSearchTool({ id: 'github:list_issues', description: 'List the issues.' }),
          makeSearchTool({ id: 'kubernetes:list_pods', description: 'List the pods.' }),
        ]),
      );
      // Left out, the default: abbreviations are read.
      return new ToolSearch(catalog, expandQueries === undefined ? {} : { expandQueries });
    }
    const ids = async (search: ToolSearch, query: string, explain = false) =>
      (await search.search({ query, limit: 2, explain })).hits.map((hit) => hit.tool.id);

    it('reads PR as pull request and k8s as kubernetes, as the catalog writes them', async () => {
      expect((await ids(code(), 'show my open PRs'))[0]).toBe('github:list_pull_requests');
      expect(await ids(code(), 'k8s pods')).toEqual(['kubernetes:list_pods']);
    });

    it('says so in the explanation', async () => {
      const page = await code().search({ query: 'k8s pods', limit: 1, explain: true });
      expect(page.hits[0]?.explanation?.expansions).toEqual({ k8s: ['kubernetes'] });
    });

    it('reads a verb through its synonyms that tool names use ("erase" → delete)', async () => {
      const catalog = new Catalog({ debounceMs: 0 });
      catalog.replaceSource(
        's',
        entries([
          makeSearchTool({ id: 'git:create_branch', description: 'Create a branch.' }),
          makeSearchTool({ id: 'git:delete_branch', description: 'Delete a branch.' }),
        ]),
      );
      const verbs = VerbLexicon.parse(
        'erase v 1 0 1 0 00000002',
        '00000002 29 v 02 delete 0 erase 0 000 | wipe out',
      );
      const rank = async (search: ToolSearch) =>
        (await search.search({ query: 'erase the old branch', limit: 2 })).hits.map((hit) => hit.tool.id);
      // Without synonyms only "branch" matches, and both tools tie (id order). The verb stage is
      // left out: it knows "erase" as a delete of its own (verb-stage.ts).
      expect(await rank(new ToolSearch(catalog, { verbWeight: 0 }))).toEqual([
        'git:create_branch',
        'git:delete_branch',
      ]);
      expect(await rank(new ToolSearch(catalog, { verbs }))).toEqual([
        'git:delete_branch',
        'git:create_branch',
      ]);
    });

    it('takes the query as written by default', async () => {
      const catalog = new Catalog({ debounceMs: 0 });
      catalog.replaceSource('s', entries([makeSearchTool({ id: 'k:list_pods', description: 'List pods.' })]));
      expect(await ids(new ToolSearch(catalog), 'k8s')).toEqual([]);
      expect(await ids(code(false), 'show my open PRs')).toEqual([]);
    });
  });

  describe('server, then tool', () => {
    // Two tools match the query equally on their own text; one belongs to a server whose other
    // tools match the rest of the query, which is what a request about one product looks like.
    function payments(serverWeight?: number) {
      const catalog = new Catalog({ debounceMs: 0 });
      catalog.replaceSource(
        's',
        entries([
          makeSearchTool({ id: 'acme:create_charge', description: 'Create a charge.' }),
          makeSearchTool({ id: 'stripe:create_charge', description: 'Create a charge.' }),
          makeSearchTool({ id: 'stripe:list_customers', description: 'List customers.' }),
          makeSearchTool({ id: 'stripe:refund_payment', description: 'Refund a payment.' }),
        ]),
      );
      return new ToolSearch(catalog, serverWeight === undefined ? {} : { serverWeight });
    }
    const ids = async (search: ToolSearch, query: string, limit = 2) =>
      (await search.search({ query, limit })).hits.map((hit) => hit.tool.id);

    it('lifts the tools of the server that matches the request as a whole', async () => {
      const ranked = await ids(payments(), 'charge the customer for the payment', 4);
      expect(ranked.indexOf('stripe:create_charge')).toBeLessThan(ranked.indexOf('acme:create_charge'));
      expect(ranked).toHaveLength(4);
    });

    it('ranks by the tools alone with serverWeight 0', async () => {
      expect((await ids(payments(0), 'charge'))[0]).toBe('acme:create_charge');
    });

    it('still puts a tool named by the query first', async () => {
      expect((await ids(payments(), 'acme:create_charge customer payment'))[0]).toBe('acme:create_charge');
      expect((await ids(payments(), 'acme:create_charge'))[0]).toBe('acme:create_charge');
    });

    it('explains a result: its BM25F terms and fields, its rank, its server', async () => {
      const search = payments();
      const page = await search.search({ query: 'charge the customer', limit: 4, explain: true });
      const hit = page.hits.find((h) => h.tool.id === 'stripe:create_charge')!;
      const explanation = hit.explanation!;
      expect(explanation).toMatchObject({
        score: hit.score,
        strategy: 'bm25',
        lexical: { rank: page.hits.indexOf(hit) + 1, terms: { charg: { name: expect.any(Number) } } },
        server: { namespace: 'stripe', score: 1, factor: 1.5 },
      });
      expect(explanation.lexical!.terms.charg).toHaveProperty('description');
      expect(Object.keys(explanation.lexical!.terms)).toEqual(['charg']);
      // The server factor is what separates the final score from the BM25F one.
      expect(explanation.lexical!.score * explanation.server!.factor).toBeCloseTo(hit.score!, 10);
      const acme = page.hits.find((h) => h.tool.id === 'acme:create_charge')!.explanation!;
      expect(acme.server!.score).toBeLessThan(1);
      expect(acme.lexical!.score).toBeCloseTo(explanation.lexical!.score, 10);
      expect(acme.vector).toBeUndefined();
      expect(acme.learned).toBeUndefined();
    });

    it('explains nothing unless asked, and nothing for a listing', async () => {
      const search = payments();
      const asked = await search.search({ query: 'charge', limit: 4 });
      expect(asked.hits.every((hit) => hit.explanation === undefined)).toBe(true);
      const listing = await search.search({ query: ' ', limit: 4, explain: true });
      expect(listing.hits.every((hit) => hit.explanation === undefined)).toBe(true);
    });

    it('rejects a negative serverWeight', () => {
      expect(() => payments(-1)).toThrow(GatewayError);
    });
  });

  it('uses bm25 by default and lexical on request', async () => {
    const { catalog } = fixture();
    expect(new ToolSearch(catalog).strategy).toBe('bm25');
    expect(new ToolSearch(catalog, { strategy: 'lexical' }).strategy).toBe('lexical');
  });

  it.each(['bm25', 'lexical'] as const)(
    'ranks the catalog (%s) and returns the Tool objects',
    async (strategy) => {
      const { catalog, tools } = fixture();
      const search = new ToolSearch(catalog, { strategy });
      const page = await search.search({ query: 'create issue', limit: 10 });
      expect(page.hits[0]!.tool).toBe(tools[0]);
      expect(page.hits[0]!.score).toBeGreaterThan(0);
      expect(page.hits.map((h) => h.tool.id)).not.toContain('fs:read_file');
      expect(page.hasMore).toBe(false);
    },
  );

  it('pages with offset and tells whether more results follow', async () => {
    const { catalog } = fixture();
    const search = new ToolSearch(catalog);
    const all = (await search.search({ query: 'issue', limit: 10 })).hits.map((h) => h.tool.id);
    expect(all).toHaveLength(3);
    const first = await search.search({ query: 'issue', limit: 2 });
    expect(first.hits.map((h) => h.tool.id)).toEqual(all.slice(0, 2));
    expect(first.hasMore).toBe(true);
    const second = await search.search({ query: 'issue', limit: 2, offset: 2 });
    expect(second.hits.map((h) => h.tool.id)).toEqual(all.slice(2));
    expect(second.hasMore).toBe(false);
    const exact = await search.search({ query: 'issue', limit: 3 });
    expect(exact.hasMore).toBe(false);
  });

  it('applies the filter before paging', async () => {
    const { catalog } = fixture();
    const search = new ToolSearch(catalog);
    const page = await search.search({ query: 'issue', limit: 1, filter: (t) => t.namespace === 'jira' });
    expect(page.hits.map((h) => h.tool.id)).toEqual(['jira:create_ticket']);
    expect(page.hasMore).toBe(false);
  });

  it('lists every tool in id order, without scores, for a blank query', async () => {
    const { catalog } = fixture();
    const search = new ToolSearch(catalog);
    const page = await search.search({ query: '  ', limit: 3 });
    expect(page.hits.map((h) => h.tool.id)).toEqual([
      'fs:read_file',
      'github:close_issue',
      'github:create_issue',
    ]);
    expect(page.hits.every((h) => h.score === undefined)).toBe(true);
    expect(page.hasMore).toBe(true);
    const rest = await search.search({ query: '', limit: 3, offset: 3 });
    expect(rest.hits.map((h) => h.tool.id)).toEqual(['jira:create_ticket']);
    expect(rest.hasMore).toBe(false);
    const github = await search.search({ query: '', limit: 5, filter: (t) => t.namespace === 'github' });
    expect(github.hits.map((h) => h.tool.id)).toEqual(['github:close_issue', 'github:create_issue']);
    expect((await search.search({ query: '', limit: 0 })).hasMore).toBe(true);
  });

  it('rejects a bad limit or offset', async () => {
    const search = new ToolSearch(fixture().catalog);
    await expect(search.search({ query: 'x', limit: -1 })).rejects.toThrow(GatewayError);
    await expect(search.search({ query: 'x', limit: 1.5 })).rejects.toThrow(GatewayError);
    await expect(search.search({ query: 'x', limit: 1, offset: -2 })).rejects.toThrow(GatewayError);
  });

  it('follows catalog changes lazily, touching only what changed', async () => {
    const { catalog, tools } = fixture();
    const index = new CountingIndex(new Bm25Index());
    const search = new ToolSearch(catalog, { index });
    expect(index.upserts).toEqual([]);

    await search.search({ query: 'issue', limit: 5 });
    expect(index.upserts.sort()).toEqual(tools.map((t) => t.id).sort());
    expect((await search.search({ query: 'resolved', limit: 5 })).hits).toHaveLength(1);
    index.upserts = [];

    // The same version: nothing to do.
    await search.search({ query: 'issue', limit: 5 });
    expect(index.upserts).toEqual([]);

    // Replace one tool, remove one, add one; the others keep their object identity.
    const renamed = makeSearchTool({ id: 'github:close_issue', description: 'Archive a discussion.' });
    const added = makeSearchTool({ id: 'mail:send', description: 'Send an email.' });
    catalog.replaceSource('s', entries([tools[0]!, renamed, tools[2]!, added]));
    const page = await search.search({ query: 'archive discussion', limit: 5 });
    expect(page.hits.map((h) => h.tool)).toEqual([renamed]);
    expect(index.upserts.sort()).toEqual(['github:close_issue', 'mail:send']);
    expect(index.removes).toEqual(['fs:read_file']);
    expect((await search.search({ query: 'read file', limit: 5 })).hits).toEqual([]);
    expect((await search.search({ query: 'resolved', limit: 5 })).hits).toEqual([]);
  });

  it('indexes ahead of the first search on refresh()', async () => {
    const { catalog, tools } = fixture();
    const index = new CountingIndex(new Bm25Index());
    const search = new ToolSearch(catalog, { index });
    search.refresh();
    expect(index.upserts).toHaveLength(tools.length);
    await search.search({ query: 'issue', limit: 5 });
    expect(index.upserts).toHaveLength(tools.length);
  });

  it('sees single upserts and removals made through the catalog', async () => {
    const { catalog } = fixture();
    const search = new ToolSearch(catalog);
    expect((await search.search({ query: 'weather', limit: 5 })).hits).toEqual([]);
    catalog.upsert('s', {
      tool: makeSearchTool({ id: 'wx:forecast', description: 'Weather forecast.' }),
      backend,
    });
    expect((await search.search({ query: 'weather', limit: 5 })).hits.map((h) => h.tool.id)).toEqual([
      'wx:forecast',
    ]);
    catalog.remove('s', 'wx:forecast');
    expect((await search.search({ query: 'weather', limit: 5 })).hits).toEqual([]);
    catalog.remove('s');
    expect((await search.search({ query: 'issue', limit: 5 })).hits).toEqual([]);
    expect((await search.search({ query: '', limit: 5 })).hits).toEqual([]);
  });
});

describe('ToolSearch observer', () => {
  it('reports each search once: query length, paging, strategy, then the page size or the error code', async () => {
    const { catalog } = fixture();
    const events: unknown[] = [];
    const search = new ToolSearch(catalog, {
      observer: {
        start(info) {
          events.push({ start: info });
          return (end) => events.push({ end });
        },
      },
    });
    await search.search({ query: 'open issue', limit: 1 });
    await search.search({ query: '', limit: 10, offset: 1 });
    await expect(search.search({ query: 'x', limit: -1 })).rejects.toThrow(GatewayError);
    expect(events).toEqual([
      { start: { queryLength: 10, limit: 1, offset: 0, strategy: 'bm25' } },
      { end: { results: 1 } },
      { start: { queryLength: 0, limit: 10, offset: 1, strategy: 'bm25' } },
      { end: { results: 3 } },
      { start: { queryLength: 1, limit: -1, offset: 0, strategy: 'bm25' } },
      { end: { results: 0, errorCode: 'invalid_request' } },
    ]);
  });
});
