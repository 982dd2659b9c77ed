import { describe, expect, it } from 'vitest';
import { fuseRanks, fuseScores } from './rank-fusion.js';
import {
  DEFAULT_QUERY_MEMORY,
  DEFAULT_SCORE_FUSION_WEIGHT,
  DEFAULT_SEMANTIC_WEIGHT,
} from './search-defaults.js';
import { fuseWithVectors, type VectorFusionInput } from './vector-fusion.js';

const lexical = [
  { id: 'a', score: 9 },
  { id: 'b', score: 4 },
];
const vector = [
  { id: 'c', score: 0.9 },
  { id: 'b', score: 0.8 },
];
const learned = [{ id: 'd', score: 0.7 }];
const input: VectorFusionInput = {
  vectorsOnly: false,
  fusion: 'scores',
  semanticWeight: undefined,
  lexical,
  vector,
  learned: [],
  learnedWeight: undefined,
};

describe('fuseWithVectors', () => {
  it('ranks by the vector list alone for strategy semantic', () => {
    const { hits, fused } = fuseWithVectors({ ...input, vectorsOnly: true });
    expect(hits).toEqual(vector);
    expect(fused).toEqual({ vector: { hits: vector, weight: 1 } });
  });

  it('adds standardised scores when fusing by scores, with the default vector weight', () => {
    const { hits, fused } = fuseWithVectors(input);
    const combined = fuseScores([
      { hits: lexical, weight: 1 },
      { hits: vector, weight: DEFAULT_SCORE_FUSION_WEIGHT },
    ]);
    expect(hits).toEqual(combined);
    expect(fused).toEqual({
      lexical: 1,
      vector: { hits: vector, weight: DEFAULT_SCORE_FUSION_WEIGHT },
      combined,
    });
  });

  it('fuses reciprocal ranks when fusing by ranks, with the given or default vector weight', () => {
    expect(fuseWithVectors({ ...input, fusion: 'ranks' }).hits).toEqual(
      fuseRanks([
        { hits: lexical, weight: 1 },
        { hits: vector, weight: DEFAULT_SEMANTIC_WEIGHT },
      ]),
    );
    const weighted = fuseWithVectors({ ...input, fusion: 'ranks', semanticWeight: 3 });
    expect(weighted.fused.vector?.weight).toBe(3);
    expect(weighted.hits[0]?.id).toBe('b');
  });

  it('lets learned queries join the score-fused list by rank, with their weight', () => {
    const { hits, fused } = fuseWithVectors({ ...input, learned });
    const combined = fuseScores([
      { hits: lexical, weight: 1 },
      { hits: vector, weight: DEFAULT_SCORE_FUSION_WEIGHT },
    ]);
    expect(hits).toEqual(
      fuseRanks([
        { hits: combined, weight: 1 },
        { hits: learned, weight: DEFAULT_QUERY_MEMORY.weight },
      ]),
    );
    expect(fused.learned).toEqual({ hits: learned, weight: DEFAULT_QUERY_MEMORY.weight });
    expect(fuseWithVectors({ ...input, learned, learnedWeight: 5 }).fused.learned?.weight).toBe(5);
  });
});
