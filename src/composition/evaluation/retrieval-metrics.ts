/**
 * Retrieval metrics over one ranked list, as defined by the tool-retrieval benchmarks: binary
 * relevance; Recall@k = relevant found in the top k / relevant; NDCG@k with binary gains;
 * COMP@k = 1 when every relevant item is in the top k; reciprocal rank of the first relevant item.
 */

/** Fraction of the relevant ids found in the first `k` of `ranked`. */
export function recallAt(ranked: readonly string[], relevant: ReadonlySet<string>, k: number): number {
  if (relevant.size === 0) return 0;
  let found = 0;
  for (const id of ranked.slice(0, k)) if (relevant.has(id)) found++;
  return found / relevant.size;
}

/** NDCG@k with binary gains: DCG of the ranking over DCG of an ideal ranking. */
export function ndcgAt(ranked: readonly string[], relevant: ReadonlySet<string>, k: number): number {
  if (relevant.size === 0) return 0;
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    if (relevant.has(id)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(k, relevant.size); i++) ideal += 1 / Math.log2(i + 2);
  return dcg / ideal;
}

/** 1 when every relevant id is in the first `k`, else 0. */
export function completenessAt(ranked: readonly string[], relevant: ReadonlySet<string>, k: number): number {
  if (relevant.size === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  for (const id of relevant) if (!top.has(id)) return 0;
  return 1;
}

/** 1 / rank of the first relevant id (0 when none is ranked). */
export function reciprocalRank(ranked: readonly string[], relevant: ReadonlySet<string>): number {
  const index = ranked.findIndex((id) => relevant.has(id));
  return index === -1 ? 0 : 1 / (index + 1);
}
