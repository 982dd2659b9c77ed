import { fuseRanks, fuseScores, type RankedList } from './rank-fusion.js';
import {
  DEFAULT_QUERY_MEMORY,
  DEFAULT_SCORE_FUSION_WEIGHT,
  DEFAULT_SEMANTIC_WEIGHT,
  type FusionMethod,
} from './search-defaults.js';
import type { RankTrace } from './search-explanation.js';
import type { SearchHit } from './search-index.js';

/** The lists a search with vectors fuses, and how. */
export interface VectorFusionInput {
  /** Strategy `semantic`: the vector list alone (no lexical list), weighing 1. */
  vectorsOnly: boolean;
  /** How the lexical and vector lists are fused (hybrid only). */
  fusion: FusionMethod;
  /** Weight of the vector list in hybrid fusion; default by `fusion`. */
  semanticWeight: number | undefined;
  /** The lexical hits, after the server stage (ignored when `vectorsOnly`). */
  lexical: readonly SearchHit[];
  /** The vector hits. */
  vector: readonly SearchHit[];
  /** Tools of the learned queries nearest the query's vector; joins by rank. */
  learned: readonly SearchHit[];
  /** Weight of `learned`; default {@link DEFAULT_QUERY_MEMORY}'s. */
  learnedWeight: number | undefined;
}

/**
 * One ranking from the lexical, vector and learned lists. Hybrid search with `fusion: scores` adds
 * the lexical and vector lists' standardised scores (`fuseScores`) into one list, which the learned
 * list then joins by rank; `fusion: ranks` fuses all of them by weighted reciprocal rank
 * (`fuseRanks`). Returns the ranking and what was fused, for explanations.
 */
export function fuseWithVectors(input: VectorFusionInput): {
  hits: SearchHit[];
  fused: NonNullable<RankTrace['fused']>;
} {
  const { vectorsOnly, lexical, vector, learned } = input;
  const byScores = !vectorsOnly && input.fusion === 'scores';
  const vectorWeight = vectorsOnly
    ? 1
    : (input.semanticWeight ?? (byScores ? DEFAULT_SCORE_FUSION_WEIGHT : DEFAULT_SEMANTIC_WEIGHT));
  // Score fusion makes one list of the two; learned queries by meaning then join it by rank.
  const combined = byScores
    ? fuseScores([
        { hits: lexical, weight: 1 },
        { hits: vector, weight: vectorWeight },
      ])
    : undefined;
  const lists: RankedList[] = combined
    ? [{ hits: combined, weight: 1 }]
    : vectorsOnly
      ? [{ hits: vector, weight: 1 }]
      : [
          { hits: lexical, weight: 1 },
          { hits: vector, weight: vectorWeight },
        ];
  const learnedWeight = input.learnedWeight ?? DEFAULT_QUERY_MEMORY.weight;
  if (learned.length > 0) lists.push({ hits: learned, weight: learnedWeight });
  return {
    hits: lists.length === 1 ? [...lists[0]!.hits] : fuseRanks(lists),
    fused: {
      ...(vectorsOnly ? {} : { lexical: 1 }),
      vector: { hits: vector, weight: vectorWeight },
      ...(learned.length > 0 ? { learned: { hits: learned, weight: learnedWeight } } : {}),
      ...(combined === undefined ? {} : { combined }),
    },
  };
}
