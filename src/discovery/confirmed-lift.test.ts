import { describe, expect, it } from 'vitest';
import { makeSearchTool } from '../../test/support/test-tools.js';
import { Catalog } from '../catalog/catalog.js';
import { MemoryStateStore } from '../foundation/ports/memory-state-store.js';
import { LearnedQueries } from './learned-queries.js';
import { ToolSearch } from './tool-search.js';

const backend = { execute: async () => null };
const QUERY = 'export the monthly sales figures';

/**
 * A decoy that shares words with the query in its name and description, the tool the session
 * really wants (fewer shared words), and a tool named like the query's words.
 */
function setup() {
  const catalog = new Catalog({ debounceMs: 0 });
  catalog.replaceSource(
    's',
    [
      makeSearchTool({
        id: 'crm:export_monthly_sales',
        description: 'Export the monthly sales figures: sales of the month, monthly figures by region.',
      }),
      makeSearchTool({ id: 'bi:export_dataset', description: 'Export a dataset as CSV.' }),
      makeSearchTool({ id: 'fs:read_file', description: 'Read a file.' }),
    ].map((tool) => ({ tool, backend })),
  );
  const learned = new LearnedQueries({ store: new MemoryStateStore() });
  const search = new ToolSearch(catalog, { strategy: 'bm25', learned });
  const ids = async (query: string) =>
    (await search.search({ query, limit: 3, session: 's1' })).hits.map((hit) => hit.tool.id);
  return { search, learned, ids };
}

describe('ToolSearch with queries runs confirmed', () => {
  it('lifts the tool runs confirmed above a decoy sharing the query’s words within three confirmations', async () => {
    const { learned, ids } = setup();
    const before = await ids(QUERY);
    expect(before[0]).toBe('crm:export_monthly_sales');
    expect(before).toContain('bi:export_dataset');
    const firstAt: number[] = [];
    for (let n = 1; n <= 3; n++) {
      await ids(QUERY);
      await learned.noteRun('s1', 'bi:export_dataset', true);
      if ((await ids(QUERY))[0] === 'bi:export_dataset') firstAt.push(n);
    }
    expect(firstAt.length).toBeGreaterThan(0);
    expect(firstAt[0]).toBeLessThanOrEqual(3);
    // Once first it stays first as confirmations add up.
    expect(firstAt.at(-1)).toBe(3);
    // Only this query was confirmed: another one sharing words is not lifted by it.
    expect((await ids('monthly sales figures'))[0]).toBe('crm:export_monthly_sales');
  });

  it('never hides a tool the query names exactly, however often another was confirmed for it', async () => {
    const { learned, ids } = setup();
    for (let n = 0; n < 10; n++) {
      await ids('export_monthly_sales');
      learned.learn('bi:export_dataset', 'export_monthly_sales');
    }
    expect((await ids('export_monthly_sales'))[0]).toBe('crm:export_monthly_sales');
  });

  it('explains the confirmed share: the confirmations and the part of the score they make', async () => {
    const { search, learned } = setup();
    for (let n = 0; n < 3; n++) learned.learn('bi:export_dataset', QUERY);
    const page = await search.search({ query: QUERY, limit: 3, explain: true });
    const hit = page.hits.find((h) => h.tool.id === 'bi:export_dataset');
    const confirmed = hit?.explanation?.learned?.confirmed;
    expect(confirmed?.weight).toBeCloseTo(3, 2);
    expect(confirmed?.share).toBeGreaterThan(0.3);
    expect(confirmed?.share).toBeLessThan(1);
    expect(hit?.explanation?.learned?.queries).toEqual([QUERY]);
    const decoy = page.hits.find((h) => h.tool.id === 'crm:export_monthly_sales');
    expect(decoy?.explanation?.learned?.confirmed).toBeUndefined();
  });
});
