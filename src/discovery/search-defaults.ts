/*
 * Defaults of hybrid ranking, kept free of imports so that the config schema can use them cheaply.
 */

/**
 * Weight of the semantic ranks against the BM25 ranks (weight 1) in hybrid fusion by ranks
 * (`fusion: ranks`), tuned on the ToolLens training queries only
 * (the removed `bench/tuning/search-hybrid-tune.ts`; docs/SEARCH.md).
 */
export const DEFAULT_SEMANTIC_WEIGHT = 0.25;

/** How hybrid search fuses BM25F and the vector list: by standardised scores, or by ranks (RRF). */
export type FusionMethod = 'scores' | 'ranks';

/**
 * Score fusion by default: on the ToolLens training queries it beat every RRF setting
 * (the removed `bench/tuning/search-fusion-tune.ts`; R@5 36.1 against 34.8 for the RRF default; docs/SEARCH.md).
 */
export const DEFAULT_FUSION: FusionMethod = 'scores';

/**
 * Weight of the vector list's standardised scores against BM25F's (1) in score fusion, tuned on the
 * ToolLens training queries: 0.5 35.3, 0.75 35.9, 1 36.1, 1.25 35.9, 1.5 35.3 R@5.
 */
export const DEFAULT_SCORE_FUSION_WEIGHT = 1;

/**
 * Learning from use: queries kept per tool and how fast they fade. 500 per tool, tuned on the
 * ToolLens training queries (the removed `bench/tuning/search-learn-tune.ts`, R@5 on the held-out half): 50 kept
 * 62.3, 200 71.1, 500 74.4, 1000 75.2 — past 500, twice the memory per tool buys under a point.
 */
export const DEFAULT_LEARNING = Object.freeze({ maxQueriesPerTool: 500, halfLifeDays: 30 });

/** Depth of each ranked list fused (and re-ranked by failures): far below it nothing moves up. */
export const DEFAULT_CANDIDATES = 100;

/**
 * Learning from use by meaning (`query-memory.ts`): learned queries that vote per search, the
 * weight of their list in fusion (BM25 weighs 1), and how many learned queries keep a vector
 * (20,000 × 512 floats: 40 MB). Tuned on the ToolLens training halves
 * (the removed `bench/tuning/search-learn-tune.ts --hybrid`): 20 queries at weight 2, R@5 80.2 (10–40 at 2–4 within
 * 0.7), against 68.2 for hybrid with learned words only and 74.5 for BM25F with them.
 */
export const DEFAULT_QUERY_MEMORY = Object.freeze({ neighbours: 20, weight: 2, maxQueries: 20_000 });

/**
 * The server stage (`server-index.ts`): a BM25F hit's score is multiplied by 1 + this × its
 * server's score (the best server 1). Measured in docs/SEARCH.md ("Server, then tool"): on the
 * ToolLens training split, whose 464 tools sit in 314 servers, it costs 0.6 R@5 at 0.5 (and more
 * above); on the hierarchical sets it gains (ToolBench R@5 +2.6, LiveMCPBench NDCG@10 +1.3).
 */
export const DEFAULT_SERVER_WEIGHT = 0.5;

/**
 * Weight of the English words a query's foreign words add (`language-lexicon.ts`) against the
 * query's own words (1): below them, so a translation never outweighs what was written.
 */
export const DEFAULT_LANGUAGE_WEIGHT = 0.7;

/**
 * The verb stage (`verb-stage.ts`): inside the namespace the server stage settled on, a tool whose
 * name carries the query's action × (1 + this), one whose name carries another ÷ (1 + this).
 */
export const DEFAULT_VERB_WEIGHT = 1;

/** The languages of the multilingual lexicon (`language-lexicon.ts`, `search.languages`), ISO 639-1. */
export const LEXICON_LANGUAGES = ['es', 'fr', 'de', 'pt', 'it', 'nl', 'zh', 'ja', 'ko', 'ru'] as const;
export type LexiconLanguage = (typeof LEXICON_LANGUAGES)[number];

/** Ambiguous queries get one tool per plausible server first (`diversify.ts`); `search.diversify`. */
export const DEFAULT_DIVERSIFY = true;
