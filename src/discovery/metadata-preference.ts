import type { Tool } from '../foundation/model/tool.js';
import type { SearchHit } from './search-index.js';

/** What `search_tools`' `prefer` asks for: the cheaper or the faster of equally relevant tools. */
export type SearchPreference = 'cheap' | 'fast';

/**
 * How close two scores must be to count as equally relevant: within 5% of the better one. Scores
 * of different tools are rarely exactly equal (BM25 weighs description lengths, fusion adds
 * fractions), so exact equality would make `prefer` do nothing; 5% keeps it from lifting a tool
 * the query clearly matched worse.
 */
export const EQUAL_RELEVANCE_TOLERANCE = 0.05;

/**
 * Reorders `hits` (best first) so that within each run of equally relevant hits — each within
 * {@link EQUAL_RELEVANCE_TOLERANCE} of the run's first — tools with a lower `metadata.cost`
 * (`cheap`) or `metadata.latencyHintMs` (`fast`) come first; tools that declare none come after
 * those that do, and ties keep their order. Scores are left as they are.
 */
export function preferByMetadata(
  hits: readonly SearchHit[],
  prefer: SearchPreference,
  toolOf: (id: string) => Tool | undefined,
): SearchHit[] {
  const figure = (hit: SearchHit): number => {
    const metadata = toolOf(hit.id)?.metadata;
    const value = prefer === 'cheap' ? metadata?.cost : metadata?.latencyHintMs;
    return value ?? Number.POSITIVE_INFINITY;
  };
  const out: SearchHit[] = [];
  let i = 0;
  while (i < hits.length) {
    const lead = hits[i] as SearchHit;
    const floor = lead.score - Math.abs(lead.score) * EQUAL_RELEVANCE_TOLERANCE;
    let j = i + 1;
    while (j < hits.length && (hits[j] as SearchHit).score >= floor) j++;
    const run = hits.slice(i, j).map((hit, at) => ({ hit, at, figure: figure(hit) }));
    // Stable: equal figures keep the ranking's order.
    run.sort((a, b) => (a.figure === b.figure ? a.at - b.at : a.figure < b.figure ? -1 : 1));
    for (const { hit } of run) out.push(hit);
    i = j;
  }
  return out;
}
