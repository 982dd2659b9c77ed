import { describe, expect, it } from 'vitest';
import { settledNamespace, verbFactor, weighVerbs } from './verb-stage.js';

const namespaceOf = (id: string) => id.split(':')[0];

describe('settledNamespace', () => {
  it('is the best server when no other comes close, else none', () => {
    expect(
      settledNamespace(
        new Map([
          ['git', 1],
          ['chat', 0.3],
        ]),
      ),
    ).toBe('git');
    expect(
      settledNamespace(
        new Map([
          ['git', 1],
          ['chat', 0.9],
        ]),
      ),
    ).toBeUndefined();
  });

  it('is none without server scores (one namespace, or the stage off); the only server matched is settled', () => {
    expect(settledNamespace(new Map())).toBeUndefined();
    expect(settledNamespace(new Map([['git', 1]]))).toBe('git');
  });
});

describe('weighVerbs', () => {
  const families: Record<string, Set<string>> = {
    'git:delete_comment': new Set(['delete']),
    'git:add_comment': new Set(['create']),
    'git:comment_stats': new Set(),
    'chat:delete_message': new Set(['delete']),
  };
  const input = {
    families: new Set(['create']),
    namespace: 'git',
    weight: 1,
    namespaceOf,
    familiesOf: (id: string) => families[id] ?? new Set<string>(),
  };

  it("lets the query's action decide inside the settled server before shared nouns; others keep their places", () => {
    const hits = [
      { id: 'git:delete_comment', score: 10 },
      { id: 'chat:delete_message', score: 7 },
      { id: 'git:comment_stats', score: 6 },
      { id: 'git:add_comment', score: 4 },
    ];
    expect(weighVerbs(hits, input)).toEqual([
      { id: 'git:add_comment', score: 10 },
      { id: 'chat:delete_message', score: 7 },
      { id: 'git:comment_stats', score: 6 },
      { id: 'git:delete_comment', score: 4 },
    ]);
  });

  it('changes nothing when the query has no action or the weight is 0', () => {
    const hits = [
      { id: 'git:delete_comment', score: 10 },
      { id: 'git:add_comment', score: 4 },
    ];
    expect(weighVerbs(hits, { ...input, families: new Set() })).toEqual(hits);
    expect(weighVerbs(hits, { ...input, weight: 0 })).toEqual(hits);
  });

  it('factors: (1 + w) for a shared family, its inverse for another, 1 for none', () => {
    expect(verbFactor(new Set(['create']), new Set(['create']), 2)).toBe(2);
    expect(verbFactor(new Set(['delete']), new Set(['create']), 2)).toBe(0.5);
    expect(verbFactor(new Set(), new Set(['create']), 2)).toBe(1);
  });
});
