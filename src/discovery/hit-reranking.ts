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

/**
 * The weight of confirmations at which a learned query's lift is whole: three successful runs
 * after the same query reach it, even with some fading between them.
 */
export const FULL_LIFT_WEIGHT = 2.5;

/** What {@link liftConfirmed} added to one tool: its confirmed weight, and the lift in score. */
export interface ConfirmedLift {
  weight: number;
  lift: number;
}

/**
 * Lifts the tools runs confirmed for this very query (learning from use): each gains the top
 * score × min(1, weight / {@link FULL_LIFT_WEIGHT}). Sharing words with a query is evidence a
 * tool may fit; a session that searched these words and then ran the tool successfully, again and
 * again, is stronger evidence — after three confirmations the tool is above every tool that merely
 * shares words with the query (its own score plus the top one). Added, not multiplied, so it
 * matters however the words scored the tool; only tools among the hits (matched, in scope) are
 * lifted. A tool the query names is lifted above all this afterwards (`penaliseAndLiftNamed`).
 */
export function liftConfirmed(
  hits: readonly SearchHit[],
  confirmed: readonly { toolId: string; weight: number }[],
): { hits: SearchHit[]; lifts: Map<string, ConfirmedLift> } {
  const weights = new Map(confirmed.map((c) => [c.toolId, c.weight]));
  const top = hits.reduce((max, hit) => Math.max(max, hit.score), 0);
  const lifts = new Map<string, ConfirmedLift>();
  const lifted = hits.map((hit) => {
    const weight = weights.get(hit.id);
    if (weight === undefined) return hit;
    const lift = top * Math.min(1, weight / FULL_LIFT_WEIGHT);
    lifts.set(hit.id, { weight, lift });
    return { id: hit.id, score: hit.score + lift };
  });
  return { hits: lifted.sort(compareHits), lifts };
}
