import type { Tool } from '../foundation/model/tool.js';

/** One search result: a tool id and its relevance (higher is better; the scale is the index's own). */
export interface SearchHit {
  id: string;
  score: number;
}

/** Text about a tool that does not come from the tool itself. */
export interface SearchExtras {
  /** Queries that led to successful runs of the tool, indexed as its `learned` field. */
  learned?: string;
}

/** How many hits to return, and which tools may appear at all. */
export interface SearchOptions {
  /** Maximum number of hits; 0 or less returns none. */
  limit: number;
  /** Tools for which this returns false never appear; applied before `limit`, so it never starves a page. */
  filter?: ((tool: Tool) => boolean) | undefined;
  /**
   * Words added to the query (translations of its foreign words: `language-lexicon.ts`), each
   * term counted at `weight` (below 1, so they rank below the query's own words); a term the
   * query already has counts once, at full weight. Indexes without term weights ignore it.
   */
  added?: WeightedText | undefined;
}

/** Text whose terms count at `weight` in a query. */
export interface WeightedText {
  text: string;
  weight: number;
}

/**
 * The search port: a full-text index of tools that is kept up to date one tool at a time.
 * Every implementation runs through `runSearchIndexContract` (see `search-index.contract.ts`).
 */
export interface SearchIndex {
  /** The ranking strategy this index implements. */
  readonly strategy: 'lexical' | 'bm25';
  /**
   * Adds a tool, or replaces the tool with the same id (its old text stops matching). Incremental.
   * `extra` is text about the tool from outside the catalog (what it learned from use).
   */
  upsert(tool: Tool, extra?: SearchExtras): void;
  /** Removes the tool with this id; unknown ids are ignored. */
  remove(id: string): void;
  /** Number of tools indexed. */
  readonly size: number;
  /**
   * Tools matching `query`, best first. Only hits with a score above 0; ties broken by id
   * ascending; `options.filter` applied before `options.limit`. An empty query (or one made only
   * of stop words) returns no hits: listing is the caller's job.
   */
  search(query: string, options: SearchOptions): SearchHit[];
}

/** Search-result order: higher score first, then id ascending (code-unit order, locale-independent). */
export function compareHits(a: SearchHit, b: SearchHit): number {
  if (a.score !== b.score) return b.score - a.score;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
