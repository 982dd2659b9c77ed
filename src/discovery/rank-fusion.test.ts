import { describe, expect, it } from 'vitest';
import { fuseRanks, fuseScores, RRF_K, standardScores } from './rank-fusion.js';

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

describe('score fusion', () => {
  it('standardises a list: (score − lowest) / standard deviation (hand-computed)', () => {
    // Scores 3, 2, 1: mean 2, population standard deviation √(2/3).
    const standard = standardScores([
      { id: 'a', score: 3 },
      { id: 'b', score: 2 },
      { id: 'c', score: 1 },
    ]);
    const sd = Math.sqrt(2 / 3);
    expect(standard.get('a')).toBeCloseTo(2 / sd, 12);
    expect(standard.get('b')).toBeCloseTo(1 / sd, 12);
    expect(standard.get('c')).toBe(0);
    // The scale is the list's own: ×1000 changes nothing.
    const scaled = standardScores([
      { id: 'a', score: 3000 },
      { id: 'b', score: 2000 },
      { id: 'c', score: 1000 },
    ]);
    expect(scaled.get('a')).toBeCloseTo(standard.get('a')!, 9);
  });

  it('gives 1 to each hit of a list that does not spread, and nothing for an empty list', () => {
    expect([...standardScores([{ id: 'only', score: 7 }])]).toEqual([['only', 1]]);
    expect([
      ...standardScores([
        { id: 'x', score: 2 },
        { id: 'y', score: 2 },
      ]),
    ]).toEqual([
      ['x', 1],
      ['y', 1],
    ]);
    expect(standardScores([]).size).toBe(0);
  });

  it('adds weighted standard scores, absent counting 0; unlike ranks, a wide lead survives', () => {
    // The lexical list has one clear winner; the vector list a near-tie in the other order.
    const lexical = [
      { id: 'far-ahead', score: 10 },
      { id: 'b', score: 1.1 },
      { id: 'c', score: 1 },
    ];
    const vector = [
      { id: 'b', score: 0.81 },
      { id: 'far-ahead', score: 0.8 },
      { id: 'c', score: 0.2 },
    ];
    const lists = [
      { hits: lexical, weight: 1 },
      { hits: vector, weight: 1 },
    ];
    expect(fuseScores(lists)[0]?.id).toBe('far-ahead');
    // By ranks the two are level (1st + 2nd each), and the tie goes to the id: b.
    expect(fuseRanks(lists)[0]?.id).toBe('b');
    const l = standardScores(lexical);
    const v = standardScores(vector);
    for (const hit of fuseScores(lists)) expect(hit.score).toBeCloseTo(l.get(hit.id)! + v.get(hit.id)!, 12);
    // Weight 0 drops a list; a tool in one list only gets that list's part alone.
    expect(
      fuseScores([
        { hits: lexical, weight: 0 },
        { hits: [{ id: 'z', score: 1 }], weight: 2 },
      ]),
    ).toEqual([{ id: 'z', score: 2 }]);
  });
});
