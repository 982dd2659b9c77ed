import type { Catalog } from '../catalog/catalog.js';
import { decodeCursor, encodeCursor, listingKey } from '../catalog/cursor.js';
import { type DetailLevel, describeTool, toolSummary } from '../discovery/describe-tool.js';
import type { SearchPreference } from '../discovery/metadata-preference.js';
import type { SearchExplanation } from '../discovery/search-explanation.js';
import type { ToolSearch } from '../discovery/tool-search.js';
import { type ChainOutcome, type ChainStep, runChain } from '../execution/chain-runner.js';
import type { RunPipeline, RunRequest } from '../execution/run-pipeline.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import type { Tool, ToolExample, ToolResult } from '../foundation/model/tool.js';
import { isModelVisible } from '../foundation/model/tool-ui.js';
import { compileChainArgs } from './chain-templates.js';
import { andPredicates, filterPredicate, type SearchFilters } from './search-filters.js';

/** The parts a scope works over; made once by app/ and shared by every scope. */
export interface ScopeDeps {
  catalog: Catalog;
  search: ToolSearch;
  pipeline: RunPipeline;
  maxChainSteps: number;
  /** Longest description in search and list items (`search.descriptionChars`); default 160. */
  descriptionChars?: number;
  /** Explain every search's results unless a request says otherwise (`search.explain`). */
  explain?: boolean;
}

export interface ToolScopeOptions {
  /** Name of the scope (a toolset name); undefined for the whole catalog. */
  name?: string;
  /** Which tools exist in this scope. Default: all. */
  isVisible?: (tool: Tool) => boolean;
}

/** A list or search page (docs/DESIGN.md §4 result shape). */
export interface ToolPage {
  tools: (ReturnType<typeof toolSummary> & { explanation?: SearchExplanation })[];
  nextCursor?: string;
}

export type CallOptions = Omit<RunRequest, 'toolId' | 'args' | 'isVisible'>;

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/**
 * A scoped view of the catalog: what one caller may list, search, describe and run. Every surface
 * (MCP metatools, flat MCP tools, CLI, REST) answers through a scope, so they cannot disagree.
 */
export class ToolScope {
  readonly name: string | undefined;
  /** The shared scope this one narrows for one caller (`narrow`); itself when it narrows none. */
  readonly unnarrowed: ToolScope;
  private readonly isVisible: ((tool: Tool) => boolean) | undefined;

  constructor(
    private readonly deps: ScopeDeps,
    options: ToolScopeOptions = {},
  ) {
    this.name = options.name;
    this.isVisible = options.isVisible;
    this.unnarrowed = this;
  }

  /**
   * This scope with fewer tools: those `keep` accepts too (policy rules hiding tools from one
   * caller). Lists, search, describe and runs all see the narrower set; `unnarrowed` is this one.
   */
  narrow(keep: (tool: Tool) => boolean): ToolScope {
    const visible = this.isVisible;
    const narrowed = new ToolScope(this.deps, {
      ...(this.name === undefined ? {} : { name: this.name }),
      isVisible: visible ? (tool) => visible(tool) && keep(tool) : keep,
    });
    (narrowed as { unnarrowed: ToolScope }).unnarrowed = this.unnarrowed;
    return narrowed;
  }

  /** Longest description in search and list items (undefined: the default). */
  get descriptionChars(): number | undefined {
    return this.deps.descriptionChars;
  }

  /** Catalog version (changes whenever the visible catalog may have changed). */
  get version(): number {
    return this.deps.catalog.version;
  }

  /** Every tool visible in this scope, sorted by id. */
  tools(): Tool[] {
    const all = this.deps.catalog.tools();
    return this.isVisible ? all.filter(this.isVisible) : [...all];
  }

  /**
   * Ranked search with filters applied before the limit. `session` links the search to the runs
   * that follow it in that session (learning from use). `strategy` says what answered.
   */
  async search(
    params: {
      query: string;
      limit?: number | undefined;
      cursor?: string | undefined;
      session?: string | undefined;
      /**
       * Add to each item `explanation`: why it ranks there (see `SearchExplanation`). Left out, the
       * scope's default (`search.explain`) decides.
       */
      explain?: boolean | undefined;
      /** Among equally relevant tools, the cheaper or the faster first. */
      prefer?: SearchPreference | undefined;
    } & SearchFilters,
  ): Promise<ToolPage & { strategy: string }> {
    const { query, limit, cursor, session, explain, prefer, ...filters } = params;
    const size = pageSize(limit);
    const key = listingKey({
      s: 'search',
      q: query,
      f: filters,
      scope: this.name ?? null,
      ...(prefer ? { p: prefer } : {}),
    });
    const offset = cursor ? decodeCursor(cursor, this.version, key) : 0;
    const { hits, hasMore, strategy } = await this.deps.search.search({
      query,
      limit: size,
      offset,
      filter: andPredicates(this.isVisible, filterPredicate(filters)),
      ...(session ? { session } : {}),
      ...(prefer ? { prefer } : {}),
      ...((explain ?? this.deps.explain) ? { explain: true } : {}),
    });
    const page: ToolPage & { strategy: string } = {
      tools: hits.map((hit) => {
        const summary = toolSummary(
          hit.tool,
          query.trim() ? hit.score : undefined,
          this.deps.descriptionChars,
        );
        return hit.explanation ? { ...summary, explanation: hit.explanation } : summary;
      }),
      strategy,
    };
    if (hasMore) page.nextCursor = encodeCursor(offset + size, this.version, key);
    return page;
  }

  /** Tools in id order, optionally in one namespace; app-only tools (MCP Apps) are not listed. */
  list(
    params: { namespace?: string | undefined; limit?: number | undefined; cursor?: string | undefined } = {},
  ): ToolPage {
    const size = pageSize(params.limit);
    const key = listingKey({ s: 'list', ns: params.namespace ?? null, scope: this.name ?? null });
    const offset = params.cursor ? decodeCursor(params.cursor, this.version, key) : 0;
    const matching = this.tools().filter(
      (t) => (params.namespace === undefined || t.namespace === params.namespace) && isModelVisible(t),
    );
    const page: ToolPage = {
      tools: matching
        .slice(offset, offset + size)
        .map((t) => toolSummary(t, undefined, this.deps.descriptionChars)),
    };
    if (offset + size < matching.length) page.nextCursor = encodeCursor(offset + size, this.version, key);
    return page;
  }

  /** Namespaces visible in this scope with their tool counts (as `list` lists them). */
  namespaces(): { namespace: string; tools: number }[] {
    const counts = new Map<string, number>();
    for (const tool of this.tools())
      if (isModelVisible(tool)) counts.set(tool.namespace, (counts.get(tool.namespace) ?? 0) + 1);
    return [...counts].map(([namespace, tools]) => ({ namespace, tools }));
  }

  /** Resolves a visible tool; `tool_not_found` otherwise. */
  get(toolId: string): Tool {
    return this.deps.pipeline.resolve(toolId, this.isVisible);
  }

  describe(toolId: string, level: DetailLevel = 'schema', examplesMax?: number) {
    return describeTool(this.get(toolId), level, examplesMax === undefined ? {} : { examplesMax });
  }

  examples(toolId: string, max = 5): ToolExample[] {
    return this.get(toolId).examples.slice(0, Math.max(0, max));
  }

  run(toolId: string, args: unknown, options: CallOptions): Promise<ToolResult> {
    return this.deps.pipeline.run({ ...options, toolId, args, ...this.scopeRequest() });
  }

  chain(steps: readonly ChainStep[], options: CallOptions): Promise<ChainOutcome> {
    return runChain(this.deps.pipeline, {
      ...options,
      ...this.scopeRequest(),
      steps,
      maxSteps: this.deps.maxChainSteps,
      resolveArgs: compileChainArgs(steps),
    });
  }

  private scopeRequest(): Pick<RunRequest, 'isVisible'> {
    return this.isVisible ? { isVisible: this.isVisible } : {};
  }
}

function pageSize(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw new GatewayError('validation_input', `limit must be an integer from 1 to ${MAX_PAGE_SIZE}`, {
      details: { issues: [{ path: '/limit', message: `must be 1..${MAX_PAGE_SIZE}` }] },
    });
  }
  return limit;
}
