import type { SearchHit } from './search-index.js';

/** Hits looked at: the first page of a usual search. */
export const DIVERSIFY_DEPTH = 10;
/** Hits scoring at least this share of the best one are "close": any of them could be meant. */
export const DIVERSIFY_CLOSE = 0.75;

/**
 * λ of maximal marginal relevance: relevance against novelty of server. At 0.7 a second tool of a
 * placed server goes before another server's best only when it is relevant by 0.3/0.7 ≈ 0.43 of
 * the best score more — never inside the close window of {@link DIVERSIFY_CLOSE}.
 */
export const DIVERSIFY_LAMBDA = 0.7;

/** What diversification needs to know. */
export interface DiversifyInput {
  namespaceOf: (id: string) => string | undefined;
  /** Hits looked at (default {@link DIVERSIFY_DEPTH}). */
  depth?: number;
  /** The share of the best score that counts as close (default {@link DIVERSIFY_CLOSE}). */
  close?: number;
  /** λ (default {@link DIVERSIFY_LAMBDA}). */
  lambda?: number;
}

/**
 * A first page for an ambiguous query: when the leading hits score close to one another and come
 * from several servers, they are reordered by maximal marginal relevance (Carbonell & Goldstein,
 * 1998) — each next hit is the one with the best λ · relevance − (1 − λ) · similarity to the hits
 * already placed, relevance being the score over the best score and similarity 1 for a tool of a
 * server already placed (else 0) — so that each plausible server's best tool comes before a
 * second tool of any unless that second tool is far more relevant. "Look into the problem" is
 * better answered by one tool of each of Sentry, GitHub and the browser than by five of one.
 * Hits outside the close window keep their place after it; the order changes, scores do not.
 * Unchanged when one server holds the window.
 */
export function diversifyByServer(hits: readonly SearchHit[], input: DiversifyInput): SearchHit[] {
  const depth = Math.min(input.depth ?? DIVERSIFY_DEPTH, hits.length);
  const top = hits[0]?.score ?? 0;
  if (depth < 2 || !(top > 0)) return [...hits];
  const close = (input.close ?? DIVERSIFY_CLOSE) * top;
  let end = 0;
  while (end < depth && hits[end]!.score >= close) end++;
  const window = hits.slice(0, end).map((hit) => ({ hit, server: input.namespaceOf(hit.id) ?? hit.id }));
  if (new Set(window.map((entry) => entry.server)).size < 2) return [...hits];
  const lambda = input.lambda ?? DIVERSIFY_LAMBDA;
  const placed = new Set<string>();
  const ordered: SearchHit[] = [];
  while (window.length > 0) {
    let best = 0;
    let bestValue = Number.NEGATIVE_INFINITY;
    window.forEach((entry, i) => {
      const value = lambda * (entry.hit.score / top) - (1 - lambda) * (placed.has(entry.server) ? 1 : 0);
      // Strictly greater: ties keep the list's order.
      if (value > bestValue) {
        best = i;
        bestValue = value;
      }
    });
    const [chosen] = window.splice(best, 1);
    ordered.push(chosen!.hit);
    placed.add(chosen!.server);
  }
  return [...ordered, ...hits.slice(end)];
}

/**
 * Whether the query names one of the servers or tools it matched, which makes it not ambiguous:
 * a word of the query is the product word of one window namespace — its first word, which no
 * other window namespace starts with (`github` of `github`, `brave` of `brave-search`, not the
 * `search` any tool may do) — or a compound tool name (at least four letters, separators
 * ignored) is written in it, or the query is a tool's name.
 */
export function namesServerOrTool(
  queryTerms: ReadonlySet<string>,
  compactQuery: string,
  window: readonly { namespace: string; name: string }[],
  termsOf: (text: string) => string[],
): boolean {
  const owners = new Map<string, Set<string>>();
  for (const { namespace, name } of window) {
    const compactName = compact(name);
    // A one-word name (`query`, `find`) is also a plain word of requests; only a compound names a tool.
    const compound = /[_\-.:\s]|\p{Ll}\p{Lu}/u.test(name);
    if (
      compactName === compactQuery ||
      (compound && compactName.length >= 4 && compactQuery.includes(compactName))
    )
      return true;
    const product = termsOf(namespace)[0];
    if (product === undefined) continue;
    let set = owners.get(product);
    if (!set) {
      set = new Set();
      owners.set(product, set);
    }
    set.add(namespace);
  }
  for (const term of queryTerms) if (owners.get(term)?.size === 1) return true;
  return false;
}

/** Lowercase letters and digits only: `create_issue` and "create issue" meet as createissue. */
export function compact(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}
