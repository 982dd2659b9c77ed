import { describe, expect, it } from 'vitest';
import { makeSearchTool } from '../../test/support/test-tools.js';
import { Catalog } from '../catalog/catalog.js';
import { diversifyByServer, namesServerOrTool } from './diversify.js';
import { tokenize } from './tokenizer.js';
import { ToolSearch } from './tool-search.js';

const namespaceOf = (id: string) => id.split(':')[0];

describe('diversifyByServer', () => {
  it("puts each close server's best tool before a second tool of any", () => {
    const hits = [
      { id: 'a:one', score: 10 },
      { id: 'a:two', score: 9.5 },
      { id: 'a:three', score: 9 },
      { id: 'b:one', score: 8.5 },
      { id: 'c:one', score: 8 },
      { id: 'd:far', score: 2 },
    ];
    expect(diversifyByServer(hits, { namespaceOf }).map((hit) => hit.id)).toEqual([
      'a:one',
      'b:one',
      'c:one',
      'a:two',
      'a:three',
      'd:far',
    ]);
  });

  it('leaves the order alone when one server holds the close hits, or the rest are far below', () => {
    const oneServer = [
      { id: 'a:one', score: 10 },
      { id: 'a:two', score: 9 },
      { id: 'b:one', score: 3 },
    ];
    expect(diversifyByServer(oneServer, { namespaceOf })).toEqual(oneServer);
  });
});

describe('namesServerOrTool', () => {
  const window = [
    { namespace: 'brave-search', name: 'brave_web_search' },
    { namespace: 'tavily', name: 'tavily_search' },
  ];
  const names = (query: string) =>
    namesServerOrTool(new Set(tokenize(query)), query.replace(/\W/g, ''), window, tokenize);

  it('is true for a product word or a compound tool name in the query', () => {
    expect(names('search with tavily')).toBe(true);
    expect(names('brave search the web')).toBe(true);
    expect(names('tavily_search cats')).toBe(true);
  });

  it('is false for plain words, even one a namespace also has', () => {
    expect(names('search the web')).toBe(false);
  });
});

describe('ToolSearch: diversified first page', () => {
  function search(diversify?: boolean) {
    const catalog = new Catalog({ debounceMs: 0 });
    const tools = [
      makeSearchTool({ id: 'alpha:screenshot_page', description: 'Take a screenshot of the page.' }),
      makeSearchTool({ id: 'alpha:screenshot_element', description: 'Take a screenshot of an element.' }),
      makeSearchTool({ id: 'alpha:screenshot_window', description: 'Take a screenshot of the window.' }),
      makeSearchTool({ id: 'beta:take_screenshot', description: 'Screenshot of the browser.' }),
      makeSearchTool({ id: 'gamma:grab_screenshot', description: 'Take a screenshot of the screen.' }),
    ];
    catalog.replaceSource(
      's',
      tools.map((tool) => ({ tool, backend: { execute: async () => null } })),
    );
    return new ToolSearch(catalog, { diversify });
  }
  const servers = async (s: ToolSearch, query: string) =>
    (await s.search({ query, limit: 3 })).hits.map((hit) => hit.tool.namespace);

  it('answers a vague request with one tool per server first, and says so in explain', async () => {
    expect(new Set(await servers(search(false), 'screenshot')).size).toBeLessThan(3);
    expect(new Set(await servers(search(), 'screenshot'))).toEqual(new Set(['alpha', 'beta', 'gamma']));
    const page = await search().search({ query: 'screenshot', limit: 1, explain: true });
    expect(page.hits[0]?.explanation?.diversified).toBe(true);
  });

  it('is off for a query that names a server', async () => {
    expect(await servers(search(), 'alpha screenshot')).toEqual(['alpha', 'alpha', 'alpha']);
  });
});
