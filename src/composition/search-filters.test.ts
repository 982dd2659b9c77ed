import { describe, expect, it } from 'vitest';
import { makeTool } from '../../test/support/test-tools.js';
import { Catalog } from '../catalog/catalog.js';
import { SemanticIndex } from '../discovery/semantic-index.js';
import { ToolSearch } from '../discovery/tool-search.js';
import type { Tool } from '../foundation/model/tool.js';
import { createHashingEmbedder } from '../foundation/ports/hashing-embedder.js';
import { MemoryStateStore } from '../foundation/ports/memory-state-store.js';
import { andPredicates, filterPredicate } from './search-filters.js';

const report = (id: string, extra: Partial<Tool> = {}) =>
  makeTool(id, { description: 'Build a sales report', ...extra });

const TOOLS = [
  report('crm:read_report', {
    tags: ['sales', 'read'],
    annotations: { readOnlyHint: true },
    metadata: { category: 'Analytics', cost: 1, latencyHintMs: 50 },
  }),
  report('crm:write_report', {
    tags: ['sales'],
    metadata: { category: 'analytics', cost: 5, latencyHintMs: 5000 },
  }),
  report('bi:report', { tags: ['sales'], metadata: { sideEffect: false } }),
  report('bi:export_report', {
    annotations: { readOnlyHint: true },
    metadata: { sideEffect: true, cost: 2 },
  }),
];

const matching = (filters: Parameters<typeof filterPredicate>[0]) => {
  const predicate = filterPredicate(filters);
  return TOOLS.filter((tool) => predicate?.(tool) ?? true).map((tool) => tool.id);
};

describe('search filters', () => {
  it('namespace: exact', () => {
    expect(matching({ namespace: 'bi' })).toEqual(['bi:report', 'bi:export_report']);
  });

  it('tags: every one; the filter is normalised (catalog tags already are)', () => {
    expect(matching({ tags: ['SALES', 'read'] })).toEqual(['crm:read_report']);
    expect(matching({ tags: ['sales'] })).toEqual(['crm:read_report', 'crm:write_report', 'bi:report']);
  });

  it('category: case-insensitive', () => {
    expect(matching({ category: 'ANALYTICS' })).toEqual(['crm:read_report', 'crm:write_report']);
  });

  it('max_cost and max_latency_ms: leave out tools above, keep tools that declare nothing', () => {
    expect(matching({ max_cost: 2 })).toEqual(['crm:read_report', 'bi:report', 'bi:export_report']);
    expect(matching({ max_latency_ms: 100 })).toEqual(['crm:read_report', 'bi:report', 'bi:export_report']);
  });

  it('allow_side_effects: false keeps read-only tools, metadata overriding the annotation', () => {
    expect(matching({ allow_side_effects: false })).toEqual(['crm:read_report', 'bi:report']);
    expect(matching({ allow_side_effects: true })).toHaveLength(4);
  });

  it('no filter is no predicate; predicates combine', () => {
    expect(filterPredicate({})).toBeUndefined();
    const both = andPredicates(filterPredicate({ namespace: 'crm' }), filterPredicate({ max_cost: 2 }));
    expect(TOOLS.filter(both!).map((t) => t.id)).toEqual(['crm:read_report']);
  });

  it.each(['bm25', 'hybrid'] as const)(
    'apply before the limit (%s): a filtered page is never starved',
    async (strategy) => {
      const catalog = new Catalog({ debounceMs: 0 });
      // Many better-matching tools that the filter excludes, and one that it keeps.
      const noise = Array.from({ length: 150 }, (_, i) =>
        makeTool(`noise:report_${i}`, { description: 'Sales report sales report' }),
      );
      catalog.replaceSource(
        's',
        [...noise, ...TOOLS].map((tool) => ({ tool, backend: { execute: async () => null } })),
      );
      const semantic = new SemanticIndex({
        embedder: createHashingEmbedder(),
        store: new MemoryStateStore(),
      });
      const search = new ToolSearch(catalog, { strategy, ...(strategy === 'hybrid' ? { semantic } : {}) });
      search.refresh();
      await semantic.whenIdle();
      const page = await search.search({
        query: 'sales report',
        limit: 1,
        filter: filterPredicate({ allow_side_effects: false, namespace: 'bi' }),
      });
      expect(page.strategy).toBe(strategy);
      expect(page.hits.map((hit) => hit.tool.id)).toEqual(['bi:report']);
    },
  );
});
