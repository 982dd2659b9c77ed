import type { Tool } from '../foundation/model/tool.js';
import type { FailureStats } from './failure-stats.js';
import { compareHits, type SearchHit } from './search-index.js';

/**
 * The server stage: a hit's score × (1 + weight × its server's score). Multiplied rather than
 * added, so the server only reorders tools the query itself matched — a tool that shares no word
 * with the query never enters on its server's merit.
 */
export function boostByServer(
  hits: SearchHit[],
  scores: ReadonlyMap<string, number>,
  weight: number,
  namespaceOf: (id: string) => string | undefined,
): SearchHit[] {
  if (scores.size === 0) return hits;
  return hits
    .map((hit) => {
      const namespace = namespaceOf(hit.id);
      const server = namespace === undefined ? 0 : (scores.get(namespace) ?? 0);
      return { id: hit.id, score: hit.score * (1 + weight * server) };
    })
    .sort(compareHits);
}

/**
 * Applies failure penalties, then lifts a tool whose name or id is the query above everything —
 * a caller naming a tool gets it, however often it failed or however vectors ranked it.
 */
export function penaliseAndLiftNamed(
  hits: readonly SearchHit[],
  query: string,
  failures: Pick<FailureStats, 'factor'> | undefined,
  toolOf: (id: string) => Tool | undefined,
): SearchHit[] {
  const wanted = query.trim().toLowerCase();
  let top = 0;
  const adjusted = hits.map((hit) => {
    const score = failures ? hit.score * failures.factor(hit.id) : hit.score;
    top = Math.max(top, score);
    return { id: hit.id, score };
  });
  for (const hit of adjusted) {
    const tool = toolOf(hit.id);
    if (tool && (tool.name.toLowerCase() === wanted || tool.id.toLowerCase() === wanted))
      hit.score += top + 1;
  }
  return adjusted.sort(compareHits);
}
