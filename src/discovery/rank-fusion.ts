import { compareHits, type SearchHit } from './search-index.js';

/** One ranked list to fuse, with how much its ranks count. */
export interface RankedList {
  hits: readonly SearchHit[];
  weight: number;
}

/** The RRF constant of Cormack, Clarke & Büttcher (SIGIR 2009): damps the lead of the top ranks. */
export const RRF_K = 60;

/**
 * Weighted reciprocal-rank fusion: a tool scores Σ weight / (k + rank) over the lists it appears
 * in (rank from 1). Only ranks count, so lists on different scales (BM25 scores, cosines) fuse
 * without calibration. Best first; ties broken by id.
 */
export function fuseRanks(lists: readonly RankedList[], k = RRF_K): SearchHit[] {
  const scores = new Map<string, number>();
  for (const { hits, weight } of lists) {
    if (weight <= 0) continue;
    hits.forEach((hit, index) => {
      scores.set(hit.id, (scores.get(hit.id) ?? 0) + weight / (k + index + 1));
    });
  }
  return [...scores].map(([id, score]) => ({ id, score })).sort(compareHits);
}
