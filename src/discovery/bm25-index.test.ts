import { describe, expect, it } from 'vitest';
import { GatewayError } from '../foundation/gateway-error.js';
import type { Tool } from '../foundation/tool.js';
import { Bm25Index, type Bm25IndexOptions } from './bm25-index.js';
import { makeTool } from './search-index.contract.js';

describe('Bm25Index scoring', () => {
  // Every field weighs 1 except the name (2). Texts avoid stop words and stemmable endings.
  const k1 = 1.2;
  const b = 0.75;
  const options: Bm25IndexOptions = {
    k1,
    b,
    exactMatchBoost: false,
    fieldWeights: {
      name: 2,
      namespace: 1,
      title: 1,
      description: 1,
      tags: 1,
      paramNames: 1,
      paramDescriptions: 1,
    },
  };
  // Weighted bags (namespace "t" is the term t):
  //   t:alpha  name alpha ×2, t, description "alpha beta"    → alpha 3, beta 1, t 1;  length 5
  //   t:beta   name beta ×2, t, description "gamma gamma gamma" → beta 2, gamma 3, t 1; length 6
  //   t:gamma  name gamma ×2, t, description "alpha delta"   → gamma 2, alpha 1, delta 1, t 1; length 5
  const corpus = (): Bm25Index => {
    const index = new Bm25Index(options);
    index.upsert(makeTool({ id: 't:alpha', description: 'alpha beta' }));
    index.upsert(makeTool({ id: 't:beta', description: 'gamma gamma gamma' }));
    index.upsert(makeTool({ id: 't:gamma', description: 'alpha delta' }));
    return index;
  };
  const n = 3;
  const avgLength = (5 + 6 + 5) / 3;
  const idf = (df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));
  const termScore = (df: number, tf: number, length: number) =>
    (idf(df) * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * length) / avgLength));

  it('matches the formula for a one-term query', () => {
    const hits = corpus().search('alpha', { limit: 10 });
    expect(hits.map((h) => h.id)).toEqual(['t:alpha', 't:gamma']);
    expect(hits[0]!.score).toBeCloseTo(termScore(2, 3, 5), 12);
    expect(hits[1]!.score).toBeCloseTo(termScore(2, 1, 5), 12);
  });

  it('sums the terms of a multi-term query and counts a repeated term once', () => {
    const hits = corpus().search('gamma alpha gamma', { limit: 10 });
    const expected = new Map([
      ['t:alpha', termScore(2, 3, 5)],
      ['t:beta', termScore(2, 3, 6)],
      ['t:gamma', termScore(2, 2, 5) + termScore(2, 1, 5)],
    ]);
    expect(hits).toHaveLength(3);
    for (const hit of hits) expect(hit.score).toBeCloseTo(expected.get(hit.id)!, 12);
    expect(hits.map((h) => h.id)).toEqual([...expected].sort((x, y) => y[1] - x[1]).map(([id]) => id));
  });

  it('gives a rarer term a higher idf', () => {
    const [delta] = corpus().search('delta', { limit: 1 });
    expect(delta!.score).toBeCloseTo(termScore(1, 1, 5), 12);
    expect(idf(1)).toBeGreaterThan(idf(2));
  });

  it('ignores length when b = 0 and saturates term frequency with k1', () => {
    const index = new Bm25Index({ ...options, b: 0 });
    index.upsert(makeTool({ id: 'x:one', description: 'omega' }));
    index.upsert(makeTool({ id: 'x:two', description: 'omega kappa kappa kappa kappa kappa' }));
    const hits = index.search('omega', { limit: 2 });
    expect(hits[0]!.score).toBe(hits[1]!.score);
    const idf2 = Math.log(1 + 0.5 / 2.5);
    expect(hits[0]!.score).toBeCloseTo((idf2 * (k1 + 1)) / (1 + k1), 12);
  });
});

describe('Bm25Index incremental updates', () => {
  const words = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'kappa', 'sigma', 'theta', 'lambda', 'zeta'];
  const toolAt = (i: number, variant: number): Tool =>
    makeTool({
      id: `ns${i % 3}:tool_${i}`,
      description: `${words[i % 10]} ${words[(i * 3 + variant) % 10]} ${words[(i * 7) % 10]} report`,
      tags: [words[(i + variant) % 10]!],
      inputSchema: { type: 'object', properties: { [`${words[(i * 5) % 10]}_id`]: { type: 'string' } } },
    });
  const queries = ['alpha', 'beta gamma', 'report', 'sigma id', 'tool', 'ns1 kappa', 'lambda zeta theta'];

  it('scores exactly as a fresh build after upserts, replacements and removals', () => {
    const incremental = new Bm25Index();
    for (let i = 0; i < 40; i++) incremental.upsert(toolAt(i, 0));
    for (let i = 0; i < 40; i += 3) incremental.upsert(toolAt(i, 1));
    for (let i = 1; i < 40; i += 4) incremental.remove(`ns${i % 3}:tool_${i}`);
    for (let i = 40; i < 45; i++) incremental.upsert(toolAt(i, 2));

    const fresh = new Bm25Index();
    for (let i = 0; i < 45; i++) {
      if (i < 40 && i % 4 === 1) continue;
      fresh.upsert(toolAt(i, i >= 40 ? 2 : i % 3 === 0 ? 1 : 0));
    }
    expect(incremental.size).toBe(fresh.size);
    for (const query of queries) {
      const a = incremental.search(query, { limit: 100 });
      const b = fresh.search(query, { limit: 100 });
      expect(a.map((h) => h.id)).toEqual(b.map((h) => h.id));
      for (const [i, hit] of a.entries()) expect(hit.score).toBeCloseTo(b[i]!.score, 9);
    }
  });

  it('upserting the same tool twice changes nothing', () => {
    const once = new Bm25Index();
    const twice = new Bm25Index();
    for (let i = 0; i < 10; i++) {
      once.upsert(toolAt(i, 0));
      twice.upsert(toolAt(i, 0));
      twice.upsert(toolAt(i, 0));
    }
    expect(twice.search('report alpha', { limit: 20 })).toEqual(once.search('report alpha', { limit: 20 }));
  });
});

describe('Bm25Index exact matches', () => {
  it('lifts an exact name match above stronger text matches, and an exact id above both', () => {
    const index = new Bm25Index();
    index.upsert(makeTool({ id: 'a:search', description: 'Look up.' }));
    index.upsert(makeTool({ id: 'b:search', description: 'Search search search.' }));
    index.upsert(makeTool({ id: 'c:search_docs', description: 'Search search search search docs.' }));
    const hits = index.search('search', { limit: 10 });
    // Both exact-name tools come first, in BM25 order among themselves.
    expect(hits.map((h) => h.id)).toEqual(['b:search', 'a:search', 'c:search_docs']);
    expect(index.search('A:Search', { limit: 1 })[0]!.id).toBe('a:search');
  });

  it('can be switched off', () => {
    const build = (exactMatchBoost: boolean) => {
      const index = new Bm25Index({ exactMatchBoost });
      const filler = 'lorem ipsum dolor amet consectetur adipiscing elit sed eiusmod tempor';
      index.upsert(makeTool({ id: 'a:send', description: `${filler} ${filler}` }));
      index.upsert(makeTool({ id: 'b:send_mail', description: 'Send, send.' }));
      return index.search('send', { limit: 2 }).map((h) => h.id);
    };
    expect(build(true)).toEqual(['a:send', 'b:send_mail']);
    expect(build(false)).toEqual(['b:send_mail', 'a:send']);
  });
});

describe('Bm25Index options', () => {
  it.each([[{ k1: -1 }], [{ b: 1.5 }], [{ b: Number.NaN }], [{ fieldWeights: { name: -2 } }]])(
    'rejects %j at once',
    (bad) => {
      expect(() => new Bm25Index(bad)).toThrow(GatewayError);
    },
  );

  it('does not index a field weighted 0', () => {
    const index = new Bm25Index({ fieldWeights: { description: 0 } });
    index.upsert(makeTool({ id: 'a:tool', description: 'secret words' }));
    expect(index.search('secret', { limit: 1 })).toEqual([]);
  });
});
