import { compareHits, type SearchHit } from './search-index.js';

/**
 * The server stage has settled on a namespace when its best server (score 1) leads every other
 * by more than this: the second scores at most this much of the best.
 */
export const SETTLED_MARGIN = 0.5;

/**
 * The namespace the query is about, if one stands out: the best server of the server stage when
 * no other comes within {@link SETTLED_MARGIN} of it (or no other matched at all). None without
 * server scores (a catalog of one namespace, or the stage off): the stage has not told servers apart then, and a catalog of one
 * namespace holding unrelated tools is no server whose tools differ only by their verbs.
 */
export function settledNamespace(servers: ReadonlyMap<string, number>): string | undefined {
  if (servers.size === 0) return undefined;
  let best: string | undefined;
  let second = 0;
  for (const [namespace, score] of servers) {
    if (score === 1 && best === undefined) best = namespace;
    else second = Math.max(second, score);
  }
  return second <= SETTLED_MARGIN ? best : undefined;
}

/** What the verb stage needs to know. */
export interface VerbStageInput {
  /** The action families the query asks for (create, delete, …), in any language. */
  families: ReadonlySet<string>;
  /** The namespace the server stage settled on. */
  namespace: string;
  /** Weight w: a tool of that namespace whose name has one of the families × (1 + w), one with only others ÷ (1 + w). */
  weight: number;
  namespaceOf: (id: string) => string | undefined;
  /** The action families of a tool's name (`add_issue_comment` → create). */
  familiesOf: (id: string) => ReadonlySet<string>;
}

/**
 * Verbs weigh inside a server: once the query is about one namespace, its tools whose names carry
 * the query's action rise, and those whose names carry another action sink — a request to add a
 * comment should not find `delete_comment` first because both say "comment". Only the order of
 * that namespace's tools among themselves changes: they keep the places they held in the list,
 * and those places go to them by score × (1 + w) for the query's action, ÷ (1 + w) for another,
 * × 1 for a name without a known action. Tools of other namespaces keep their places and scores,
 * so a namespace of one tool (a catalog of single-tool servers) is never moved by it.
 */
export function weighVerbs(hits: readonly SearchHit[], input: VerbStageInput): SearchHit[] {
  if (input.families.size === 0 || input.weight <= 0) return [...hits];
  const factor = 1 + input.weight;
  const places: number[] = [];
  const members: { hit: SearchHit; weighed: number }[] = [];
  hits.forEach((hit, place) => {
    if (input.namespaceOf(hit.id) !== input.namespace) return;
    places.push(place);
    members.push({ hit, weighed: hit.score * verbFactor(input.familiesOf(hit.id), input.families, factor) });
  });
  if (members.length < 2) return [...hits];
  members.sort((a, b) => compareHits({ id: a.hit.id, score: a.weighed }, { id: b.hit.id, score: b.weighed }));
  const result = [...hits];
  // Each place keeps its score, so the list stays in descending order.
  places.forEach((place, i) => {
    result[place] = { id: members[i]!.hit.id, score: hits[place]!.score };
  });
  return result;
}

/** The verb stage's factor for a tool with these action families: (1 + w), 1 / (1 + w) or 1. */
export function verbFactor(tool: ReadonlySet<string>, query: ReadonlySet<string>, factor: number): number {
  if (tool.size === 0) return 1;
  for (const family of tool) if (query.has(family)) return factor;
  return 1 / factor;
}
