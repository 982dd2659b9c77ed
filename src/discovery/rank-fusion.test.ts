import { describe, expect, it } from 'vitest';
import { fuseRanks, RRF_K } from './rank-fusion.js';

const list = (...ids: string[]) => ids.map((id, i) => ({ id, score: 100 - i }));

describe('weighted reciprocal-rank fusion', () => {
  it('adds weight / (k + rank) over the lists (hand-computed)', () => {
    const fused = fuseRanks([
      { hits: list('a', 'b', 'c'), weight: 1 },
      { hits: list('c', 'a'), weight: 2 },
    ]);
    const expected = {
      a: 1 / (RRF_K + 1) + 2 / (RRF_K + 2),
      b: 1 / (RRF_K + 2),
      c: 1 / (RRF_K + 3) + 2 / (RRF_K + 1),
    };
    expect(fused.map((h) => h.id)).toEqual(['c', 'a', 'b']);
    for (const hit of fused) expect(hit.score).toBeCloseTo(expected[hit.id as 'a' | 'b' | 'c'], 12);
  });

  it('uses ranks, not scores, and a weight of 0 drops a list', () => {
    const loud = [
      { id: 'x', score: 1e9 },
      { id: 'y', score: 1 },
    ];
    expect(fuseRanks([{ hits: loud, weight: 1 }]).map((h) => h.id)).toEqual(['x', 'y']);
    expect(
      fuseRanks([
        { hits: loud, weight: 0 },
        { hits: list('y'), weight: 1 },
      ]).map((h) => h.id),
    ).toEqual(['y']);
  });

  it('breaks ties by id and takes a custom k', () => {
    const fused = fuseRanks(
      [
        { hits: list('b'), weight: 1 },
        { hits: list('a'), weight: 1 },
      ],
      0,
    );
    expect(fused).toEqual([
      { id: 'a', score: 1 },
      { id: 'b', score: 1 },
    ]);
    expect(fuseRanks([])).toEqual([]);
  });
});
