import { describe, expect, it } from 'vitest';
import { optionFailure } from '../../test/support/expect-failure.js';
import { makeSearchTool } from '../../test/support/test-tools.js';
import type { Tool } from '../foundation/model/tool.js';
import { type Bm25Field, Bm25Index, type Bm25IndexOptions } from './bm25-index.js';
import { tokenize } from './tokenizer.js';

describe('Bm25Index BM25F scoring', () => {
  // Three tools, three indexed fields (the other boosts are 0, so those fields are not indexed):
  //
  //   tool          name (boost 2, b 0.5)   description (boost 1, b 0.75)   parameter names (boost 3, b 0)
  //   x:alpha_beta  alpha beta       len 2  beta gamma gamma        len 3   alpha         len 1
  //   x:gamma       gamma            len 1  alpha delta             len 2   —             len 0
  //   x:delta       delta            len 1  gamma beta beta beta    len 4   gamma delta   len 2
  //
  // Average lengths over the 3 tools: name 4/3, description 9/3 = 3, parameter names 3/3 = 1.
  // Document frequencies (any field): alpha 2, beta 2, gamma 3, delta 2.
  const k1 = 1.2;
  const options: Bm25IndexOptions = {
    k1,
    exactMatchBoost: false,
    boosts: {
      name: 2,
      namespace: 0,
      title: 0,
      description: 1,
      tags: 0,
      paramNames: 3,
      paramDescriptions: 0,
      enumValues: 0,
    },
    b: { name: 0.5, description: 0.75, paramNames: 0 },
  };
  const params = (...names: string[]) => ({
    type: 'object',
    properties: Object.fromEntries(names.map((n) => [n, { type: 'string' }])),
  });
  const corpus = (): Bm25Index => {
    const index = new Bm25Index(options);
    index.upsert(
      makeSearchTool({ id: 'x:alpha_beta', description: 'beta gamma gamma', inputSchema: params('alpha') }),
    );
    index.upsert(makeSearchTool({ id: 'x:gamma', description: 'alpha delta' }));
    index.upsert(
      makeSearchTool({
        id: 'x:delta',
        description: 'gamma beta beta beta',
        inputSchema: params('gamma', 'delta'),
      }),
    );
    return index;
  };

  // The formula, written out by hand (not the implementation's code):
  //   norm(b, len, avg) = 1 − b + b·len/avg;   tf̃ = Σ_fields boost · tf / norm
  //   score = Σ_terms idf(df) · tf̃·(k1 + 1) / (tf̃ + k1),   idf(df) = ln(1 + (3 − df + 0.5)/(df + 0.5))
  const idf = (df: number) => Math.log(1 + (3 - df + 0.5) / (df + 0.5));
  const saturate = (tf: number) => (tf * (k1 + 1)) / (tf + k1);
  const nameNorm = (len: number) => 1 - 0.5 + (0.5 * len) / (4 / 3);
  const descNorm = (len: number) => 1 - 0.75 + (0.75 * len) / 3;
  // Parameter names have b = 0: their norm is 1 whatever the length.

  it('sees the words the test assumes (no stop words, no stemming)', () => {
    expect(tokenize('alpha beta gamma delta')).toEqual(['alpha', 'beta', 'gamma', 'delta']);
  });

  it('combines boosted, per-field normalised frequencies before saturating (one-term query)', () => {
    const hits = corpus().search('alpha', { limit: 10 });
    // x:alpha_beta: name tf 1 (len 2), parameter names tf 1.  x:gamma: description tf 1 (len 2).
    const alphaBeta = idf(2) * saturate((2 * 1) / nameNorm(2) + 3 * 1);
    const gamma = idf(2) * saturate((1 * 1) / descNorm(2));
    expect(hits.map((h) => h.id)).toEqual(['x:alpha_beta', 'x:gamma']);
    expect(hits[0]!.score).toBeCloseTo(alphaBeta, 12);
    expect(hits[1]!.score).toBeCloseTo(gamma, 12);
    // Saturating each field on its own (plain BM25 per field, summed) would give more:
    expect(alphaBeta).toBeLessThan(idf(2) * (saturate((2 * 1) / nameNorm(2)) + saturate(3)));
  });

  it('sums the terms of a multi-term query and counts a repeated term once', () => {
    const hits = corpus().search('gamma beta gamma', { limit: 10 });
    const expected = new Map([
      // gamma: description tf 2 (len 3); beta: name tf 1 (len 2) + description tf 1 (len 3).
      [
        'x:alpha_beta',
        idf(3) * saturate(2 / descNorm(3)) + idf(2) * saturate(2 / nameNorm(2) + 1 / descNorm(3)),
      ],
      // gamma: name tf 1 (len 1); no beta.
      ['x:gamma', idf(3) * saturate((2 * 1) / nameNorm(1))],
      // gamma: description tf 1 (len 4) + parameter names tf 1; beta: description tf 3 (len 4).
      ['x:delta', idf(3) * saturate(1 / descNorm(4) + 3 * 1) + idf(2) * saturate(3 / descNorm(4))],
    ]);
    expect(hits).toHaveLength(3);
    for (const hit of hits) expect(hit.score).toBeCloseTo(expected.get(hit.id)!, 12);
    expect(hits.map((h) => h.id)).toEqual([...expected].sort((x, y) => y[1] - x[1]).map(([id]) => id));
  });

  it('gives a term found in every tool the lowest idf', () => {
    const [delta] = corpus().search('delta', { limit: 1 });
    // x:delta: name tf 1 (len 1) + parameter names tf 1.
    expect(delta!.id).toBe('x:delta');
    expect(delta!.score).toBeCloseTo(idf(2) * saturate(2 / nameNorm(1) + 3), 12);
    expect(idf(3)).toBeLessThan(idf(2));
  });

  it('normalises each field by its own b: b = 0 ignores length, b = 1 divides by len/avg', () => {
    const build = (b: number) => {
      const index = new Bm25Index({ k1, exactMatchBoost: false, b: { description: b } });
      index.upsert(makeSearchTool({ id: 'y:one', name: 'p', description: 'omega' }));
      index.upsert(
        makeSearchTool({ id: 'y:two', name: 'q', description: 'omega kappa kappa kappa kappa kappa' }),
      );
      return index.search('omega', { limit: 2 });
    };
    // Average description length (1 + 6)/2 = 3.5; df(omega) = 2 of N = 2.
    const idf2 = Math.log(1 + 0.5 / 2.5);
    const flat = build(0);
    expect(flat[0]!.score).toBe(flat[1]!.score);
    expect(flat[0]!.score).toBeCloseTo(idf2 * saturate(1), 12);
    const full = build(1);
    expect(full.map((h) => h.id)).toEqual(['y:one', 'y:two']);
    expect(full[0]!.score).toBeCloseTo(idf2 * saturate(1 / (1 / 3.5)), 12);
    expect(full[1]!.score).toBeCloseTo(idf2 * saturate(1 / (6 / 3.5)), 12);
  });
});

describe('Bm25Index field boosts', () => {
  const build = (boosts: Bm25IndexOptions['boosts']) => {
    const index = new Bm25Index({ boosts, exactMatchBoost: false });
    index.upsert(makeSearchTool({ id: 'a:weekly_report', description: 'Summarises the sales of one week.' }));
    index.upsert(makeSearchTool({ id: 'b:sales', description: 'Sales figures as a report, per region.' }));
    index.upsert(
      makeSearchTool({
        id: 'c:export',
        description: 'Exports data.',
        inputSchema: {
          type: 'object',
          properties: { format: { type: 'string', description: 'Output', enum: ['pdf', 'report', 'csv'] } },
        },
      }),
    );
    return index.search('report', { limit: 3 }).map((h) => h.id);
  };
  const only = (field: Bm25Field, value = 10) => ({
    name: 1,
    description: 1,
    enumValues: 1,
    [field]: value,
  });

  it('ranks first the tool whose matching field is boosted most', () => {
    expect(build(only('name'))[0]).toBe('a:weekly_report');
    expect(build(only('description'))[0]).toBe('b:sales');
    expect(build(only('enumValues'))[0]).toBe('c:export');
  });

  it('leaves a field with boost 0 out of the index', () => {
    expect(build({ name: 0, enumValues: 0 })).toEqual(['b:sales']);
  });
});

describe('Bm25Index incremental updates', () => {
  const words = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'kappa', 'sigma', 'theta', 'lambda', 'zeta'];
  const toolAt = (i: number, variant: number): Tool =>
    makeSearchTool({
      id: `ns${i % 3}:tool_${i}`,
      description: `${words[i % 10]} ${words[(i * 3 + variant) % 10]} ${words[(i * 7) % 10]} report`,
      tags: [words[(i + variant) % 10]!],
      ...(i % 4 === 0 ? { title: `${words[(i + 2) % 10]} title` } : {}),
      inputSchema: {
        type: 'object',
        properties: {
          [`${words[(i * 5) % 10]}_id`]: { type: 'string', description: `the ${words[(i * 3) % 10]} key` },
          mode: { type: 'string', enum: [words[(i + variant * 4) % 10]!, 'fast'] },
        },
      },
    });
  const queries = [
    'alpha',
    'beta gamma',
    'report',
    'sigma id',
    'tool',
    'ns1 kappa',
    'lambda zeta theta',
    'fast key title',
    'omega mode',
  ];

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

  it('ranks identically whether built at once or one tool at a time between searches, in any order', () => {
    const tuned: Bm25IndexOptions = { k1: 0.9, b: { name: 0.3, paramDescriptions: 1 }, boosts: { tags: 4 } };
    const atOnce = new Bm25Index(tuned);
    for (let i = 0; i < 30; i++) atOnce.upsert(toolAt(i, 0));
    const oneByOne = new Bm25Index(tuned);
    for (let i = 29; i >= 0; i--) {
      oneByOne.upsert(toolAt(i, 1)); // a first version, replaced below
      oneByOne.search(queries[i % queries.length]!, { limit: 5 });
    }
    for (let i = 0; i < 30; i++) oneByOne.upsert(toolAt(i, 0));
    for (const query of queries) {
      expect(oneByOne.search(query, { limit: 100 })).toEqual(atOnce.search(query, { limit: 100 }));
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
    index.upsert(makeSearchTool({ id: 'a:search', description: 'Look up.' }));
    index.upsert(makeSearchTool({ id: 'b:search', description: 'Search search search.' }));
    index.upsert(makeSearchTool({ id: 'c:search_docs', description: 'Search search search search docs.' }));
    const hits = index.search('search', { limit: 10 });
    // Both exact-name tools come first, in BM25 order among themselves.
    expect(hits.map((h) => h.id)).toEqual(['b:search', 'a:search', 'c:search_docs']);
    expect(index.search('A:Search', { limit: 1 })[0]!.id).toBe('a:search');
  });

  it('can be switched off', () => {
    const build = (exactMatchBoost: boolean) => {
      const index = new Bm25Index({ exactMatchBoost });
      const filler = 'lorem ipsum dolor amet consectetur adipiscing elit sed eiusmod tempor';
      index.upsert(makeSearchTool({ id: 'a:send', description: `${filler} ${filler}` }));
      index.upsert(makeSearchTool({ id: 'b:send_mail', description: 'Send, send.' }));
      return index.search('send', { limit: 2 }).map((h) => h.id);
    };
    expect(build(true)).toEqual(['a:send', 'b:send_mail']);
    expect(build(false)).toEqual(['b:send_mail', 'a:send']);
  });
});

describe('Bm25Index options', () => {
  it.each([
    [{ k1: -1 }],
    [{ b: 1.5 }],
    [{ b: Number.NaN }],
    [{ b: { tags: -0.1 } }],
    [{ boosts: { name: -2 } }],
    [{ boosts: { enumValues: Number.POSITIVE_INFINITY } }],
  ])('rejects %j at once', (bad) => {
    expect(optionFailure(() => new Bm25Index(bad))).toMatch(
      /^Bm25Index (k1|b\.\w+|boosts\.\w+) must be a number/,
    );
  });

  it('does not index a field weighted 0', () => {
    const index = new Bm25Index({ boosts: { description: 0 } });
    index.upsert(makeSearchTool({ id: 'a:tool', description: 'secret words' }));
    expect(index.search('secret', { limit: 1 })).toEqual([]);
  });
});

describe('Bm25Index.explain', () => {
  const tools = [
    makeSearchTool({ id: 'github:create_issue', description: 'Open a new issue in a repository.' }),
    makeSearchTool({ id: 'github:list_issues', description: 'List the issues of a repository.' }),
    makeSearchTool({ id: 'fs:read_file', description: 'Read a file.' }),
  ];
  const index = new Bm25Index();
  for (const tool of tools) index.upsert(tool);

  it('splits the score by term and field, the parts adding up to the score search gives', () => {
    const query = 'create an issue in the repository';
    const [hit] = index.search(query, { limit: 1 });
    const explanation = index.explain(query, hit!.id)!;
    expect(hit!.id).toBe('github:create_issue');
    expect(explanation.score).toBeCloseTo(hit!.score, 10);
    expect(Object.keys(explanation.terms).sort()).toEqual(['creat', 'issu', 'repositori']);
    expect(Object.keys(explanation.terms.issu!).sort()).toEqual(['description', 'name']);
    expect(explanation.terms.creat).toEqual({ name: expect.any(Number) });
    const sum = (values: Record<string, number | undefined>) =>
      Object.values(values).reduce((a: number, b) => a + (b ?? 0), 0);
    expect(sum(explanation.fields)).toBeCloseTo(hit!.score, 10);
    const byTerms = Object.values(explanation.terms).reduce((total, parts) => total + sum(parts), 0);
    expect(byTerms).toBeCloseTo(hit!.score, 10);
    expect(explanation.exactMatch).toBeUndefined();
  });

  it('says when the query named the tool, and is empty for a tool the query misses', () => {
    expect(index.explain('create_issue', 'github:create_issue')?.exactMatch).toBe('name');
    expect(index.explain('GitHub:Create_Issue', 'github:create_issue')?.exactMatch).toBe('id');
    expect(index.explain('read', 'github:create_issue')).toEqual({ score: 0, fields: {}, terms: {} });
    expect(index.explain('read', 'nope:nothing')).toBeUndefined();
  });
});
