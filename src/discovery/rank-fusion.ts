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

/**
 * A list's scores standardised over its own hits: (score − the list's lowest) / the standard
 * deviation of its scores, so that its floor is 0, as for a tool absent from it, and one unit is one
 * spread of that query's scores whatever the scale (BM25F grows with query length; cosines do not).
 * A list whose scores do not spread (one hit, or ties) gives each hit 1: being listed counts.
 */
export function standardScores(hits: readonly SearchHit[]): Map<string, number> {
  const standard = new Map<string, number>();
  if (hits.length === 0) return standard;
  let min = Number.POSITIVE_INFINITY;
  let sum = 0;
  for (const { score } of hits) {
    min = Math.min(min, score);
    sum += score;
  }
  const mean = sum / hits.length;
  let squares = 0;
  for (const { score } of hits) squares += (score - mean) ** 2;
  const spread = Math.sqrt(squares / hits.length);
  for (const { id, score } of hits) standard.set(id, spread > 0 ? (score - min) / spread : 1);
  return standard;
}

/**
 * Score fusion: a tool scores Σ weight × its {@link standardScores} in each list (0 where absent).
 * Unlike {@link fuseRanks} it keeps how far apart a list's scores are — a BM25F hit far ahead of
 * the rest stays ahead; a near-tie among cosines moves little. Best first; ties broken by id.
 */
export function fuseScores(lists: readonly RankedList[]): SearchHit[] {
  const scores = new Map<string, number>();
  for (const { hits, weight } of lists) {
    if (weight <= 0) continue;
    for (const [id, standard] of standardScores(hits))
      scores.set(id, (scores.get(id) ?? 0) + weight * standard);
  }
  return [...scores].map(([id, score]) => ({ id, score })).sort(compareHits);
}
