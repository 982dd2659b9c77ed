import type { Bm25Explanation } from './bm25-index.js';
import type { ConfirmedLift } from './hit-reranking.js';
import type { LanguageExpansion } from './language-lexicon.js';
import type { QueryExpansions } from './query-expansion.js';
import { RRF_K, standardScores } from './rank-fusion.js';
import type { SearchHit, WeightedText } from './search-index.js';
import { tokenize } from './tokenizer.js';
import { verbFactor } from './verb-stage.js';

/** Learned queries quoted per result at most. */
const MAX_LEARNED_QUOTED = 5;

/**
 * Why one search result is where it is — a plain JSON object, so that the REST API can return it
 * as it is and a console can show it. Only the parts that played a role are present.
 */
export interface SearchExplanation {
  /** The result's final score (the one on the result). */
  score: number;
  /** The strategy that answered (`bm25`, `hybrid`, …). */
  strategy: string;
  /** Query words read as the catalog writes them (`{ "pr": ["pull", "request"] }`), for every result alike. */
  expansions?: QueryExpansions;
  /**
   * Query words read through the multilingual lexicon, for every result alike: each with its
   * language, the entry it matched (`{ word: "añadir", language: "es", entry: "add", adds: ["add",
   * "create"] }`) and the English words it added, weighted below the query's own words.
   */
  languages?: LanguageExpansion[];
  /** The lexical (BM25F) list: the tool's rank there (1 = first, after the server stage) and why it matched. */
  lexical?: Bm25Explanation & { rank?: number; share?: number };
  /** The server stage: the tool's namespace, its score against the query (best server 1), and the factor applied. */
  server?: { namespace: string; score: number; factor: number };
  /**
   * The verb stage: the namespace settled on, the query's action families, this tool's, and the
   * factor its score was multiplied by (1 when its name carries no known action).
   */
  verb?: { namespace: string; query: string[]; tool: string[]; factor: number };
  /** The page was diversified by server (an ambiguous query): its order puts one tool per server first. */
  diversified?: true;
  /** The vector list (hybrid, semantic): the tool's rank by cosine, and that list's share of the fused score. */
  vector?: { rank: number; share: number };
  /**
   * Learning from use: the tool's learned queries sharing a word with this query (weightiest
   * first, at most five), and — with vectors — its rank among the tools voted for by similar
   * learned queries and that list's share of the fused score.
   */
  learned?: {
    queries: string[];
    rank?: number;
    share?: number;
    /**
     * Runs confirmed this very query for the tool: `weight` counts the confirmations (fading with
     * time), `share` is the part of the score their lift makes.
     */
    confirmed?: { weight: number; share: number };
  };
  /** Recent failures: the tool's score was multiplied by this factor (below 1). */
  failures?: { factor: number };
}

/** What a ranking went through, kept so that each result of the page can be explained. */
export interface RankTrace {
  strategy: string;
  /** The query the word lists were given: the query, plus its expansions' words. */
  lexicalQuery: string;
  expansions: QueryExpansions;
  /** The lexical hits after the server stage, in the order fused (absent for `semantic`). */
  lexical?: readonly SearchHit[];
  /** Server scores of the query (empty when the stage is off or told nothing apart). */
  servers: ReadonlyMap<string, number>;
  serverWeight: number;
  /** Tools lifted by runs that confirmed this query (`liftConfirmed`), by id. */
  confirmed?: ReadonlyMap<string, ConfirmedLift>;
  /** Query words read through the multilingual lexicon. */
  languages: readonly LanguageExpansion[];
  /** The English words they added, and their weight. */
  translated?: WeightedText;
  /** The verb stage, when it applied. */
  verbs?: { namespace: string; families: ReadonlySet<string>; weight: number };
  /** Whether the ranking was diversified by server. */
  diversified?: boolean;
  /** The lists fused, with their weights, when the ranking fused several. */
  fused?: {
    lexical?: number;
    vector?: { hits: readonly SearchHit[]; weight: number };
    learned?: { hits: readonly SearchHit[]; weight: number };
    /** With score fusion: the lexical and vector lists fused into one, which `learned` joined by rank. */
    combined?: readonly SearchHit[];
  };
}

/** The parts of the search a result is explained from. */
export interface ExplainSources {
  query: string;
  id: string;
  namespace: string;
  score: number;
  trace: RankTrace;
  bm25: Bm25Explanation | undefined;
  /** The tool's learned queries, weightiest first ('' when none). */
  learnedText: string;
  /** The failure factor applied (1: none). */
  failureFactor: number;
  /** The action families of the tool's name, when the verb stage applied. */
  verbFamilies?: ReadonlySet<string> | undefined;
}

/** Builds the explanation of one result. */
export function explainResult(sources: ExplainSources): SearchExplanation {
  const { trace, id } = sources;
  const explanation: SearchExplanation = { score: sources.score, strategy: trace.strategy };
  if (Object.keys(trace.expansions).length > 0) explanation.expansions = trace.expansions;
  if (trace.languages.length > 0) explanation.languages = trace.languages.map((entry) => ({ ...entry }));
  const rankIn = (hits: readonly SearchHit[] | undefined) => {
    const at = hits?.findIndex((hit) => hit.id === id) ?? -1;
    return at < 0 ? undefined : at + 1;
  };
  const fused = trace.fused;
  // Each list fused by rank adds weight / (k + rank); its share is that part of the sum.
  const parts = {
    lexical: fused?.lexical !== undefined ? part(fused.lexical, rankIn(trace.lexical)) : 0,
    vector: fused?.vector ? part(fused.vector.weight, rankIn(fused.vector.hits)) : 0,
    learned: fused?.learned ? part(fused.learned.weight, rankIn(fused.learned.hits)) : 0,
  };
  if (fused?.combined) {
    // Score fusion: the lexical and vector parts are their weighted standard scores, and they
    // split the combined list's rank part when learned queries joined it.
    let lexical = (fused.lexical ?? 0) * (standardScores(trace.lexical ?? []).get(id) ?? 0);
    let vector = (fused.vector?.weight ?? 0) * (standardScores(fused.vector?.hits ?? []).get(id) ?? 0);
    if (lexical + vector === 0) {
      // At the floor of both lists: whichever listed it holds its (rank) place.
      lexical = rankIn(trace.lexical) !== undefined ? 1 : 0;
      vector = rankIn(fused.vector?.hits) !== undefined ? 1 : 0;
    }
    const scale = fused.learned ? part(1, rankIn(fused.combined)) / (lexical + vector || 1) : 1;
    parts.lexical = lexical * scale;
    parts.vector = vector * scale;
  }
  const total = parts.lexical + parts.vector + parts.learned;
  const share = (value: number) => (total > 0 ? value / total : 0);
  // `semantic` ranks without the lexical list: then BM25F put nothing there and is not reported.
  if (trace.lexical && sources.bm25 && (sources.bm25.score > 0 || sources.bm25.exactMatch)) {
    const rank = rankIn(trace.lexical);
    explanation.lexical = {
      ...sources.bm25,
      ...(rank !== undefined ? { rank } : {}),
      ...(fused ? { share: share(parts.lexical) } : {}),
    };
  }
  const server = trace.servers.get(sources.namespace);
  if (server !== undefined && explanation.lexical) {
    explanation.server = {
      namespace: sources.namespace,
      score: server,
      factor: 1 + trace.serverWeight * server,
    };
  }
  if (trace.verbs && sources.namespace === trace.verbs.namespace && sources.verbFamilies) {
    explanation.verb = {
      namespace: trace.verbs.namespace,
      query: [...trace.verbs.families],
      tool: [...sources.verbFamilies],
      factor: verbFactor(sources.verbFamilies, trace.verbs.families, 1 + trace.verbs.weight),
    };
  }
  if (trace.diversified) explanation.diversified = true;
  const vectorRank = rankIn(fused?.vector?.hits);
  if (vectorRank !== undefined) explanation.vector = { rank: vectorRank, share: share(parts.vector) };
  const queries = matchingLearned(trace.lexicalQuery, sources.learnedText);
  const learnedRank = rankIn(fused?.learned?.hits);
  const confirmed = trace.confirmed?.get(id);
  if (queries.length > 0 || learnedRank !== undefined || confirmed) {
    explanation.learned = {
      queries,
      ...(learnedRank !== undefined ? { rank: learnedRank, share: share(parts.learned) } : {}),
      ...(confirmed
        ? {
            confirmed: {
              weight: round(confirmed.weight),
              share: sources.score > 0 ? round(Math.min(1, confirmed.lift / sources.score)) : 0,
            },
          }
        : {}),
    };
  }
  if (sources.failureFactor < 1) explanation.failures = { factor: sources.failureFactor };
  return explanation;
}

function part(weight: number, rank: number | undefined): number {
  return rank === undefined || weight <= 0 ? 0 : weight / (RRF_K + rank);
}

/** The learned queries (one per line of `text`) sharing at least one index term with `query`. */
function matchingLearned(query: string, text: string): string[] {
  if (text === '') return [];
  const terms = new Set(tokenize(query));
  const matching: string[] = [];
  for (const learned of text.split(' \n ')) {
    if (tokenize(learned).some((term) => terms.has(term))) matching.push(learned);
    if (matching.length === MAX_LEARNED_QUOTED) break;
  }
  return matching;
}

/** Three decimals: what a reader compares. */
function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
