import type { Catalog } from '../catalog/catalog.js';
import { GatewayError, toGatewayError } from '../foundation/model/gateway-error.js';
import type { Tool } from '../foundation/model/tool.js';
import type { Logger } from '../foundation/ports/logger.js';
import type { SearchObserver } from '../foundation/ports/operation-observer.js';
import { numberInRange } from '../foundation/util/option-checks.js';
import { Bm25Index, type Bm25IndexOptions } from './bm25-index.js';
import { compact, diversifyByServer, namesServerOrTool } from './diversify.js';
import type { FailureStats } from './failure-stats.js';
import { boostByServer, liftConfirmed, penaliseAndLiftNamed } from './hit-reranking.js';
import { type LanguageExpansion, LanguageLexicon, type LexiconLanguage } from './language-lexicon.js';
import type { LearnedQueries } from './learned-queries.js';
import { LexicalIndex } from './lexical-index.js';
import { preferByMetadata, type SearchPreference } from './metadata-preference.js';
import { ModelFacingFilter } from './model-facing-filter.js';
import { withoutPastedData } from './pasted-data.js';
import { QueryExpander } from './query-expansion.js';
import type { QueryMemory } from './query-memory.js';
import {
  DEFAULT_CANDIDATES,
  DEFAULT_DIVERSIFY,
  DEFAULT_FUSION,
  DEFAULT_LANGUAGE_WEIGHT,
  DEFAULT_QUERY_MEMORY,
  DEFAULT_SCORE_FUSION_WEIGHT,
  DEFAULT_SEMANTIC_WEIGHT,
  DEFAULT_SERVER_WEIGHT,
  DEFAULT_VERB_WEIGHT,
  type FusionMethod,
} from './search-defaults.js';
import { explainResult, type RankTrace, type SearchExplanation } from './search-explanation.js';
import type { SearchHit, SearchIndex, WeightedText } from './search-index.js';
import type { SemanticIndex } from './semantic-index.js';
import { ServerIndex } from './server-index.js';
import { tokenize } from './tokenizer.js';
import { fuseWithVectors } from './vector-fusion.js';
import type { VerbLexicon } from './verb-lexicon.js';
import { settledNamespace, weighVerbs } from './verb-stage.js';

/** Hits ranked past the page when `prefer` is set, so a run of equal scores at its end is whole. */
const PREFER_LOOKAHEAD = 20;

/** The ranking strategies of `search.strategy`. */
export type SearchStrategy = 'lexical' | 'bm25' | 'semantic' | 'hybrid';

/** Whether a strategy ranks with vectors (and so needs an embedder). */
export function usesVectors(strategy: SearchStrategy): boolean {
  return strategy === 'semantic' || strategy === 'hybrid';
}

/**
 * Options of {@link ToolSearch}. Every field may be given as `undefined`, meaning its default: it is
 * an options bag read field by field, so callers pass settings through without conditional spreads.
 */
export interface ToolSearchOptions {
  /**
   * Ranking strategy. Default `bm25`. `semantic` and `hybrid` need `semantic`, and answer with the
   * lexical index alone until it is ready. The lexical index is `lexical` for `lexical`, else BM25.
   */
  strategy?: SearchStrategy | undefined;
  /** Options of the BM25 index. */
  bm25?: Bm25IndexOptions | undefined;
  /** A ready, empty lexical index to use instead of one built from `strategy` (a test double). */
  index?: SearchIndex | undefined;
  /** Vectors of the tools (strategies `semantic` and `hybrid`). */
  semantic?: SemanticIndex | undefined;
  /**
   * How hybrid search fuses the BM25F list and the vector list: `scores` adds their standardised
   * scores (`fuseScores`), `ranks` their reciprocal ranks (`fuseRanks`). Learned queries by meaning
   * join either result by rank. Default {@link DEFAULT_FUSION}.
   */
  fusion?: FusionMethod | undefined;
  /**
   * Weight of the vector list in hybrid fusion (BM25 weighs 1). Default
   * {@link DEFAULT_SCORE_FUSION_WEIGHT} when fusing scores, {@link DEFAULT_SEMANTIC_WEIGHT} ranks.
   */
  semanticWeight?: number | undefined;
  /**
   * The server stage: each BM25F hit's score is multiplied by 1 + serverWeight × its namespace's
   * score (the best server 1; see `server-index.ts`), before fusion and paging. 0 turns it off.
   * Default {@link DEFAULT_SERVER_WEIGHT}.
   */
  serverWeight?: number | undefined;
  /**
   * Read abbreviations in queries as the catalog writes them (`PR` → pull request, `k8s` →
   * kubernetes; see `query-expansion.ts`) for the lexical and server lists. Default true: it costs
   * the benchmark sets nothing (none has such abbreviations; docs/SEARCH.md), and people ask for
   * "my PRs" of catalogs that say `list_pull_requests`.
   */
  expandQueries?: boolean | undefined;
  /**
   * Verb synonyms (WordNet's, `verb-lexicon.ts`): a query verb no tool name uses gets the related
   * verbs tool names use. Default none.
   */
  verbs?: VerbLexicon | undefined;
  /**
   * The languages of the multilingual lexicon read in queries (`language-lexicon.ts`): a foreign
   * word adds its English words at {@link DEFAULT_LANGUAGE_WEIGHT}. Default all ten; empty: none.
   */
  languages?: readonly LexiconLanguage[] | undefined;
  /**
   * The verb stage's weight (`verb-stage.ts`): inside the namespace the server stage settled on,
   * the query's action decides among its tools. Default {@link DEFAULT_VERB_WEIGHT}; 0 is off.
   */
  verbWeight?: number | undefined;
  /**
   * Ambiguous queries (close scores over several servers, no server or tool named) get each
   * plausible server's best tool first (`diversify.ts`). Default {@link DEFAULT_DIVERSIFY}.
   */
  diversify?: boolean | undefined;
  /** Depth of each list fused. Default {@link DEFAULT_CANDIDATES}. */
  candidates?: number | undefined;
  /** Recent failures, which sink a tool's score. */
  failures?: FailureStats | undefined;
  /** Learning from use: searches are noted, and learned queries indexed. */
  learned?: LearnedQueries | undefined;
  /** Learned queries by meaning (with `semantic`): their tools join the fusion as a third list. */
  memory?: QueryMemory | undefined;
  /** Weight of that list. Default {@link DEFAULT_QUERY_MEMORY}. */
  memoryWeight?: number | undefined;
  /** Told of every search (spans, latency metrics). Default none. */
  observer?: SearchObserver | undefined;
  log?: Logger | undefined;
}

/** One page request. */
export interface ToolSearchParams {
  /** Free text; empty or blank lists every tool in id order. */
  query: string;
  /** Page size, ≥ 0. */
  limit: number;
  /** Results to skip, ≥ 0. Default 0. */
  offset?: number | undefined;
  /** Scope: tools for which it returns false never appear. Applied before paging. */
  filter?: ((tool: Tool) => boolean) | undefined;
  /** The caller's session, so that a run that follows can teach search (learning from use). */
  session?: string | undefined;
  /** Explain each result (`ToolSearchHit.explanation`): which fields, terms and lists put it there. */
  explain?: boolean | undefined;
  /** Among equally relevant results, the cheaper or faster first (`metadata-preference.ts`). */
  prefer?: SearchPreference | undefined;
}

/** One result; `score` is absent when the query was empty (a listing, not a ranking). */
export interface ToolSearchHit {
  tool: Tool;
  score?: number;
  /** Why it ranks here; only when the search asked to `explain` and the query was not empty. */
  explanation?: SearchExplanation;
}

/** One page of results. */
export interface ToolSearchPage {
  hits: ToolSearchHit[];
  /** Whether results exist after `offset + limit`. */
  hasMore: boolean;
  /**
   * The strategy that answered: `hybrid` or `semantic` only when vectors were used, else the
   * lexical index's (`bm25`, `lexical`) — during warm-up, or when the embedder failed.
   */
  strategy: string;
}

/**
 * Searches a Catalog: a lexical index (BM25F) kept in sync with it, optionally fused with vector
 * search (standardised scores added, or weighted reciprocal-rank fusion), then re-ranked by recent
 * failures — all before the page is cut. Syncing is lazy: each search compares `catalog.version`
 * with the version last indexed and, if they differ, diffs the catalog by tool object identity (the
 * catalog swaps in a new Tool object on every change), upserting new and changed tools and removing
 * gone ones. Lazy rather than event-driven because catalog events are debounced, and a search must
 * never see a catalog older than the caller does.
 */
export class ToolSearch {
  private readonly catalog: Catalog;
  private readonly index: SearchIndex;
  private readonly indexed = new Map<string, Tool>();
  /** Leaves app-only tools (MCP Apps) out of every page: search is what the model is shown. */
  private readonly modelFacing = new ModelFacingFilter();
  private indexedVersion = -1;
  /** Tools whose learned text changed since they were indexed. */
  private readonly relearned = new Set<string>();
  /** The server stage; absent when `serverWeight` is 0. */
  private readonly servers: ServerIndex | undefined;
  private readonly serverWeight: number;
  private readonly fusion: FusionMethod;
  /** Abbreviations learned from the catalog; absent when `expandQueries` is false. */
  private readonly expander: QueryExpander | undefined;
  private readonly lexicon: LanguageLexicon;
  private readonly verbWeight: number;
  private readonly diversify: boolean;
  /** The action families of each indexed tool's name, computed when first needed. */
  private readonly toolFamilies = new Map<string, ReadonlySet<string>>();
  private readonly termsOfNamespace = new Map<string, string[]>();
  readonly strategy: SearchStrategy;
  /** Lookups into what is indexed, for the re-ranking stages (`hit-reranking.ts`). */
  private readonly namespaceOf = (id: string): string | undefined => this.indexed.get(id)?.namespace;
  private readonly toolOf = (id: string): Tool | undefined => this.indexed.get(id);

  constructor(
    catalog: Catalog,
    private readonly options: ToolSearchOptions = {},
  ) {
    this.catalog = catalog;
    this.strategy = options.strategy ?? 'bm25';
    if (usesVectors(this.strategy) && !options.semantic) {
      throw new GatewayError('config_invalid', `search strategy "${this.strategy}" needs an embedder`);
    }
    this.index =
      options.index ?? (this.strategy === 'lexical' ? new LexicalIndex() : new Bm25Index(options.bm25));
    this.fusion = options.fusion ?? DEFAULT_FUSION;
    if (this.fusion !== 'scores' && this.fusion !== 'ranks') {
      throw new GatewayError(
        'config_invalid',
        `search fusion must be "scores" or "ranks", got "${this.fusion}"`,
      );
    }
    if (options.semanticWeight !== undefined) {
      numberInRange(options.semanticWeight, 0, Number.POSITIVE_INFINITY, 'ToolSearch semanticWeight');
    }
    this.serverWeight = options.serverWeight ?? DEFAULT_SERVER_WEIGHT;
    numberInRange(this.serverWeight, 0, Number.POSITIVE_INFINITY, 'ToolSearch serverWeight');
    this.servers =
      this.serverWeight > 0 && this.index.strategy === 'bm25' ? new ServerIndex(options.bm25) : undefined;
    this.expander =
      options.expandQueries !== false || options.verbs
        ? new QueryExpander({ abbreviations: options.expandQueries !== false, verbs: options.verbs })
        : undefined;
    this.lexicon = new LanguageLexicon(options.languages);
    this.verbWeight = options.verbWeight ?? DEFAULT_VERB_WEIGHT;
    numberInRange(this.verbWeight, 0, Number.POSITIVE_INFINITY, 'ToolSearch verbWeight');
    this.diversify = options.diversify ?? DEFAULT_DIVERSIFY;
    options.learned?.subscribe((toolId) => this.relearned.add(toolId));
  }

  /** The strategy of the lexical index (what answers when vectors are not used). */
  get lexicalStrategy(): string {
    return this.index.strategy;
  }

  /** One page of tools matching `params.query`, best first (or all tools by id for an empty query). */
  async search(params: ToolSearchParams): Promise<ToolSearchPage> {
    const observer = this.options.observer;
    if (!observer) return this.searchPage(params);
    const end = observer.start({
      queryLength: params.query.length,
      limit: params.limit,
      offset: params.offset ?? 0,
      strategy: this.strategy,
    });
    try {
      const page = await this.searchPage(params);
      end({ results: page.hits.length });
      return page;
    } catch (error) {
      end({ results: 0, errorCode: toGatewayError(error).code });
      throw error;
    }
  }

  private async searchPage(params: ToolSearchParams): Promise<ToolSearchPage> {
    const limit = params.limit;
    const offset = params.offset ?? 0;
    if (!Number.isInteger(limit) || limit < 0) {
      throw new GatewayError('invalid_request', `limit must be an integer ≥ 0, got ${limit}`);
    }
    if (!Number.isInteger(offset) || offset < 0) {
      throw new GatewayError('invalid_request', `offset must be an integer ≥ 0, got ${offset}`);
    }
    const end = offset + limit;
    const filter = this.modelFacing.of(params.filter, this.catalog.version, () => this.catalog.tools());
    if (params.query.trim() === '') return this.list(offset, end, filter);

    this.refresh();
    const prefer = params.prefer;
    // With a preference, a run of equal scores may straddle the page's end: look a little further.
    const ranked = await this.rank(params.query, prefer ? end + 1 + PREFER_LOOKAHEAD : end + 1, filter);
    const { strategy, trace } = ranked;
    const hits = prefer ? preferByMetadata(ranked.hits, prefer, this.toolOf) : ranked.hits;
    const page: ToolSearchHit[] = [];
    for (const hit of hits.slice(offset, end)) {
      const tool = this.indexed.get(hit.id);
      if (!tool) continue;
      page.push(
        params.explain
          ? { tool, score: hit.score, explanation: this.explain(params.query, tool, hit.score, trace) }
          : { tool, score: hit.score },
      );
    }
    if (params.session && this.options.learned && page.length > 0) {
      // Awaited: with a shared record, a run answered by another replica right after must find it.
      await this.options.learned.noteSearch(
        params.session,
        params.query,
        page.map((hit) => hit.tool.id),
      );
    }
    return { hits: page, hasMore: hits.length > end, strategy };
  }

  /** At least `need` hits (when there are), best first, after fusion and failure penalties. */
  private async rank(
    query: string,
    need: number,
    filter: ((tool: Tool) => boolean) | undefined,
  ): Promise<{ hits: SearchHit[]; strategy: string; trace: RankTrace }> {
    const failures = this.options.failures;
    const penalise = failures !== undefined && !failures.empty;
    const semantic = this.options.semantic;
    const useVectors = semantic?.ready === true && usesVectors(this.strategy);
    const servers = this.strategy === 'semantic' ? undefined : this.servers;
    // Data pasted into the request (a base64 image, a hash) ranks nothing; both lists read without it.
    const text = withoutPastedData(query);
    // Vectors read the request as written; the word lists get the catalog's spellings added.
    const expansions = this.expander?.expand(text) ?? {};
    const added = Object.values(expansions).flat();
    const lexicalQuery = added.length > 0 ? `${text} ${added.join(' ')}` : text;
    // Tools a run confirmed for this very query: they are lifted (`liftConfirmed`), so they must be
    // among the candidates even when the words alone rank them past the page.
    const confirmed = this.options.learned?.toolsOf(query) ?? [];
    // Foreign words add their English words, weighted below the query's own.
    const index = this.index;
    const languages = this.lexicon.expand(text, (word) => index instanceof Bm25Index && index.knows(word));
    const translated: WeightedText | undefined =
      languages.length > 0
        ? {
            text: languages.flatMap((expansion) => expansion.adds).join(' '),
            weight: DEFAULT_LANGUAGE_WEIGHT,
          }
        : undefined;
    const depth =
      useVectors || penalise || servers || confirmed.length > 0
        ? Math.max(need, this.options.candidates ?? DEFAULT_CANDIDATES)
        : need;
    let hits =
      this.strategy === 'semantic' && useVectors
        ? []
        : this.index.search(lexicalQuery, { limit: depth, filter, added: translated });
    const serverScores = servers ? servers.scores(lexicalQuery, translated) : new Map<string, number>();
    if (servers) hits = boostByServer(hits, serverScores, this.serverWeight, this.namespaceOf);
    const settled = settledNamespace(serverScores);
    const verbs = settled === undefined ? undefined : this.verbStage(lexicalQuery, languages, settled, hits);
    if (verbs) hits = weighVerbs(hits, verbs);
    const trace: RankTrace = {
      strategy: this.index.strategy,
      lexicalQuery,
      expansions,
      servers: serverScores,
      serverWeight: this.serverWeight,
      ...(this.strategy === 'semantic' && useVectors ? {} : { lexical: hits }),
      languages,
      ...(translated ? { translated } : {}),
      ...(verbs
        ? { verbs: { namespace: verbs.namespace, families: verbs.families, weight: verbs.weight } }
        : {}),
    };
    let strategy: string = this.index.strategy;
    if (useVectors) {
      try {
        const vector = await semantic.queryVector(text);
        const fused = fuseWithVectors({
          vectorsOnly: this.strategy === 'semantic',
          fusion: this.fusion,
          semanticWeight: this.options.semanticWeight,
          lexical: hits,
          vector: await semantic.search(vector, { limit: depth, filter }),
          learned: this.recall(vector, depth, filter),
          learnedWeight: this.options.memoryWeight,
        });
        hits = fused.hits;
        strategy = this.strategy;
        trace.strategy = strategy;
        trace.fused = fused.fused;
      } catch (error) {
        this.options.log?.warn(
          { err: (error as Error).message },
          'query embedding failed; answering with BM25 alone',
        );
        if (this.strategy === 'semantic') {
          hits = this.index.search(lexicalQuery, { limit: depth, filter, added: translated });
          trace.lexical = hits;
        }
      }
    }
    if (confirmed.length > 0) {
      const lifted = liftConfirmed(hits, confirmed);
      hits = lifted.hits;
      trace.confirmed = lifted.lifts;
    }
    // After the lift: a tool the query names still comes first, whatever was learned.
    if (penalise || useVectors || servers || confirmed.length > 0) {
      hits = penaliseAndLiftNamed(hits, query, penalise ? failures : undefined, this.toolOf);
    }
    if (this.diversify && settled === undefined) {
      // Reordering is cheap; whether the query names a server or tool is asked only when it moved something.
      const diversified = diversifyByServer(hits, { namespaceOf: this.namespaceOf });
      if (diversified.some((hit, i) => hit !== hits[i]) && this.ambiguous(lexicalQuery, hits)) {
        hits = diversified;
        trace.diversified = true;
      }
    }
    return { hits, strategy, trace };
  }

  /**
   * The verb stage's input, when it applies: the query asks for an action (in any language), and
   * the server stage settled on `namespace`.
   */
  private verbStage(
    lexicalQuery: string,
    languages: readonly LanguageExpansion[],
    namespace: string,
    hits: readonly SearchHit[],
  ) {
    if (this.verbWeight === 0 || hits.length < 2) return undefined;
    // The query's actions, each as the families of one action word (`show` → get, list).
    const actions = new Map<string, readonly string[]>();
    const note = (families: readonly string[]) => {
      if (families.length > 0) actions.set(families.join(' '), families);
    };
    for (const term of tokenize(lexicalQuery)) note(this.lexicon.familiesOf(term));
    for (const expansion of languages) {
      if (expansion.kind === 'action') note(this.lexicon.familiesOf(tokenize(expansion.entry)[0] ?? ''));
    }
    // One action decides among a server's tools; a request for several ("get the profile and
    // delete the post") wants tools of each, which favouring some would push out of the page.
    if (actions.size !== 1) return undefined;
    const families = new Set([...actions.values()][0]);
    return {
      families,
      namespace,
      weight: this.verbWeight,
      namespaceOf: this.namespaceOf,
      familiesOf: this.familiesOf,
    };
  }

  /** The action families of a tool's name (`add_issue_comment` → create), cached per tool. */
  private readonly familiesOf = (id: string): ReadonlySet<string> => {
    let families = this.toolFamilies.get(id);
    if (!families) {
      const tool = this.indexed.get(id);
      const set = new Set<string>();
      for (const term of tool ? tokenize(tool.name) : []) {
        for (const family of this.lexicon.familiesOf(term)) set.add(family);
      }
      families = set;
      this.toolFamilies.set(id, families);
    }
    return families;
  };

  /** The index terms of a namespace, remembered: namespaces are few and asked about often. */
  private readonly namespaceTerms = (namespace: string): string[] => {
    let terms = this.termsOfNamespace.get(namespace);
    if (!terms) {
      terms = tokenize(namespace);
      this.termsOfNamespace.set(namespace, terms);
    }
    return terms;
  };

  /** Whether the query names none of the servers or tools of the first page (it may be ambiguous). */
  private ambiguous(lexicalQuery: string, hits: readonly SearchHit[]): boolean {
    if (hits.length < 2) return false;
    const window = [];
    for (const hit of hits.slice(0, 10)) {
      const tool = this.indexed.get(hit.id);
      if (tool) window.push({ namespace: tool.namespace, name: tool.name });
    }
    return !namesServerOrTool(
      new Set(tokenize(lexicalQuery)),
      compact(lexicalQuery),
      window,
      this.namespaceTerms,
    );
  }

  /** The explanation of one result of the page (see `search-explanation.ts`). */
  private explain(query: string, tool: Tool, score: number, trace: RankTrace): SearchExplanation {
    const failures = this.options.failures;
    return explainResult({
      query,
      id: tool.id,
      namespace: tool.namespace,
      score,
      trace,
      bm25:
        this.index instanceof Bm25Index
          ? this.index.explain(trace.lexicalQuery, tool.id, trace.translated)
          : undefined,
      verbFamilies: trace.verbs ? this.familiesOf(tool.id) : undefined,
      learnedText: this.options.learned?.text(tool.id) ?? '',
      failureFactor: failures && !failures.empty ? failures.factor(tool.id) : 1,
    });
  }

  /** Tools of the learned queries nearest the query's vector, those in the catalog and the scope. */
  private recall(vector: Float32Array, depth: number, filter: ((tool: Tool) => boolean) | undefined) {
    const memory = this.options.memory;
    if (!memory) return [];
    return memory.search(vector, {
      limit: depth,
      filter: (id) => {
        const tool = this.indexed.get(id);
        return tool !== undefined && (filter?.(tool) ?? true);
      },
    });
  }

  /**
   * Brings the indexes up to date with the catalog (and with what was learned) now, touching only
   * what changed. Searches do this themselves; call it at startup so that the first search does not
   * pay for indexing everything, and so that tool vectors start computing.
   */
  refresh(): void {
    const version = this.catalog.version;
    if (version !== this.indexedVersion) {
      const tools = this.catalog.tools();
      for (const tool of tools) {
        if (this.indexed.get(tool.id) === tool) continue;
        this.upsert(tool);
      }
      // Ids are unique in the catalog, so more indexed tools than catalog tools means some are gone;
      // only then is the set of present ids worth building.
      if (this.indexed.size > tools.length) {
        const present = new Set(tools.map((tool) => tool.id));
        for (const id of this.indexed.keys()) {
          if (present.has(id)) continue;
          this.index.remove(id);
          this.servers?.remove(id);
          this.expander?.remove(id);
          this.options.semantic?.remove(id);
          this.indexed.delete(id);
          this.toolFamilies.delete(id);
        }
      }
      this.indexedVersion = version;
    }
    for (const id of this.relearned) {
      const tool = this.indexed.get(id);
      if (!tool) continue;
      const extras = this.extras(id);
      this.index.upsert(tool, extras);
      this.servers?.upsert(tool, extras);
    }
    this.relearned.clear();
  }

  private upsert(tool: Tool): void {
    this.toolFamilies.delete(tool.id);
    const extras = this.extras(tool.id);
    this.index.upsert(tool, extras);
    this.servers?.upsert(tool, extras);
    this.expander?.upsert(tool);
    this.options.semantic?.upsert(tool);
    this.indexed.set(tool.id, tool);
    this.relearned.delete(tool.id);
  }

  private extras(id: string): { learned?: string } {
    const learned = this.options.learned?.text(id);
    return learned ? { learned } : {};
  }

  /** Listing needs no index: the catalog is already sorted by id. */
  private list(offset: number, end: number, filter: ((tool: Tool) => boolean) | undefined): ToolSearchPage {
    const hits: ToolSearchHit[] = [];
    let seen = 0;
    for (const tool of this.catalog.tools()) {
      if (filter && !filter(tool)) continue;
      if (seen++ < offset) continue;
      if (hits.length === end - offset) return { hits, hasMore: true, strategy: 'list' };
      hits.push({ tool });
    }
    return { hits, hasMore: false, strategy: 'list' };
  }
}
