import { describe, expect, it } from 'vitest';
import { completenessAt, ndcgAt, recallAt, reciprocalRank } from './retrieval-metrics.js';

const relevant = new Set(['a', 'b']);

describe('retrieval metrics (hand-computed)', () => {
  it('recall@k', () => {
    expect(recallAt(['x', 'a', 'y', 'b'], relevant, 1)).toBe(0);
    expect(recallAt(['x', 'a', 'y', 'b'], relevant, 2)).toBe(0.5);
    expect(recallAt(['x', 'a', 'y', 'b'], relevant, 4)).toBe(1);
  });

  it('ndcg@k with binary gains', () => {
    // Hits at ranks 2 and 4: DCG = 1/log2(3) + 1/log2(5); ideal = 1 + 1/log2(3).
    const expected = (1 / Math.log2(3) + 1 / Math.log2(5)) / (1 + 1 / Math.log2(3));
    expect(ndcgAt(['x', 'a', 'y', 'b'], relevant, 5)).toBeCloseTo(expected, 12);
    expect(ndcgAt(['a', 'b', 'x'], relevant, 5)).toBe(1);
    // Only rank 2 inside k=2: (1/log2(3)) / (1 + 1/log2(3)).
    expect(ndcgAt(['x', 'a', 'b'], relevant, 2)).toBeCloseTo(1 / Math.log2(3) / (1 + 1 / Math.log2(3)), 12);
  });

  it('completeness@k and reciprocal rank', () => {
    expect(completenessAt(['a', 'x', 'b'], relevant, 2)).toBe(0);
    expect(completenessAt(['a', 'x', 'b'], relevant, 3)).toBe(1);
    expect(reciprocalRank(['x', 'y', 'b'], relevant)).toBeCloseTo(1 / 3, 12);
    expect(reciprocalRank(['x'], relevant)).toBe(0);
  });
});
