import type { Catalog } from '../catalog/catalog.js';
import { GatewayError, toGatewayError } from '../foundation/gateway-error.js';
import type { SearchObserver } from '../foundation/operation-observer.js';
import type { Tool } from '../foundation/tool.js';
import { Bm25Index, type Bm25IndexOptions } from './bm25-index.js';
import { LexicalIndex } from './lexical-index.js';
import type { SearchIndex } from './search-index.js';

/** Options of {@link ToolSearch}. */
export interface ToolSearchOptions {
  /** Ranking strategy. Default `bm25`. Ignored when `index` is given. */
  strategy?: 'lexical' | 'bm25';
  /** Options of the BM25 index (strategy `bm25` only). */
  bm25?: Bm25IndexOptions;
  /** A ready, empty index to use instead of one built from `strategy` (another strategy, a test double). */
  index?: SearchIndex;
  /** Told of every search (spans, latency metrics). Default none. */
  observer?: SearchObserver;
}

/** One page request. */
export interface ToolSearchParams {
  /** Free text; empty or blank lists every tool in id order. */
  query: string;
  /** Page size, ≥ 0. */
  limit: number;
  /** Results to skip, ≥ 0. Default 0. */
  offset?: number;
  /** Scope: tools for which it returns false never appear. Applied before paging. */
  filter?: (tool: Tool) => boolean;
}

/** One result; `score` is absent when the query was empty (a listing, not a ranking). */
export interface ToolSearchHit {
  tool: Tool;
  score?: number;
}

/** One page of results. */
export interface ToolSearchPage {
  hits: ToolSearchHit[];
  /** Whether results exist after `offset + limit`. */
  hasMore: boolean;
}

/**
 * Searches a Catalog through a SearchIndex kept in sync with it. Syncing is lazy: each search
 * compares `catalog.version` with the version last indexed and, if they differ, diffs the catalog
 * by tool object identity (the catalog swaps in a new Tool object on every change), upserting new
 * and changed tools and removing gone ones. Lazy rather than event-driven because catalog events
 * are debounced, and a search must never see a catalog older than the caller does.
 */
export class ToolSearch {
  private readonly catalog: Catalog;
  private readonly index: SearchIndex;
  private readonly indexed = new Map<string, Tool>();
  private indexedVersion = -1;
  private readonly observer: SearchObserver | undefined;

  constructor(catalog: Catalog, options: ToolSearchOptions = {}) {
    this.catalog = catalog;
    this.observer = options.observer;
    this.index =
      options.index ??
      ((options.strategy ?? 'bm25') === 'bm25' ? new Bm25Index(options.bm25) : new LexicalIndex());
  }

  /** The strategy of the underlying index. */
  get strategy(): SearchIndex['strategy'] {
    return this.index.strategy;
  }

  /** One page of tools matching `params.query`, best first (or all tools by id for an empty query). */
  search(params: ToolSearchParams): ToolSearchPage {
    if (!this.observer) return this.searchPage(params);
    const end = this.observer.start({
      queryLength: params.query.length,
      limit: params.limit,
      offset: params.offset ?? 0,
      strategy: this.index.strategy,
    });
    try {
      const page = this.searchPage(params);
      end({ results: page.hits.length });
      return page;
    } catch (error) {
      end({ results: 0, errorCode: toGatewayError(error).code });
      throw error;
    }
  }

  private searchPage(params: ToolSearchParams): ToolSearchPage {
    const limit = params.limit;
    const offset = params.offset ?? 0;
    if (!Number.isInteger(limit) || limit < 0) {
      throw new GatewayError('invalid_request', `limit must be an integer ≥ 0, got ${limit}`);
    }
    if (!Number.isInteger(offset) || offset < 0) {
      throw new GatewayError('invalid_request', `offset must be an integer ≥ 0, got ${offset}`);
    }
    const end = offset + limit;
    if (params.query.trim() === '') return this.list(offset, end, params.filter);

    this.refresh();
    // One extra hit tells whether another page exists without counting every match.
    const hits = this.index.search(params.query, { limit: end + 1, filter: params.filter });
    const page: ToolSearchHit[] = [];
    for (const hit of hits.slice(offset, end)) {
      const tool = this.indexed.get(hit.id);
      if (tool) page.push({ tool, score: hit.score });
    }
    return { hits: page, hasMore: hits.length > end };
  }

  /**
   * Brings the index up to date with the catalog now, touching only what changed. Searches do this
   * themselves; call it at startup so that the first search does not pay for indexing everything.
   */
  refresh(): void {
    const version = this.catalog.version;
    if (version === this.indexedVersion) return;
    const tools = this.catalog.tools();
    for (const tool of tools) {
      if (this.indexed.get(tool.id) === tool) continue;
      this.index.upsert(tool);
      this.indexed.set(tool.id, tool);
    }
    // Ids are unique in the catalog, so more indexed tools than catalog tools means some are gone;
    // only then is the set of present ids worth building.
    if (this.indexed.size > tools.length) {
      const present = new Set(tools.map((tool) => tool.id));
      for (const id of this.indexed.keys()) {
        if (present.has(id)) continue;
        this.index.remove(id);
        this.indexed.delete(id);
      }
    }
    this.indexedVersion = version;
  }

  /** Listing needs no index: the catalog is already sorted by id. */
  private list(offset: number, end: number, filter: ((tool: Tool) => boolean) | undefined): ToolSearchPage {
    const hits: ToolSearchHit[] = [];
    let seen = 0;
    for (const tool of this.catalog.tools()) {
      if (filter && !filter(tool)) continue;
      if (seen++ < offset) continue;
      if (hits.length === end - offset) return { hits, hasMore: true };
      hits.push({ tool });
    }
    return { hits, hasMore: false };
  }
}
