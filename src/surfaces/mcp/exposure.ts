import type { Tool as McpTool } from '@modelcontextprotocol/server';
import { DEFAULT_PAGE_SIZE, type ToolScope } from '../../composition/tool-scope.js';
import { idMatcher } from '../../composition/toolsets/toolset-predicate.js';
import { describeTool, toolSummary } from '../../discovery/describe-tool.js';
import type { Tool } from '../../foundation/model/tool.js';
import { isModelVisible } from '../../foundation/model/tool-ui.js';
import { approximateTokenCounter, type TokenCounter } from '../../foundation/ports/token-counter.js';
import { FlatNaming } from './flat-naming.js';
import type { Metatool } from './metatool.js';
import type { ResourceNaming } from './resource-naming.js';

export type ExposureMode = 'metatools' | 'flat' | 'auto';

/** What `auto` decided for a scope: every tool listed beside the metatools (`flat`), or not. */
export type AutoListing = 'flat' | 'metatools';

export interface ExposureOptions {
  mode: ExposureMode;
  /**
   * auto: an explicit budget — tools are listed directly while their `tools/list` entries cost at
   * most this many tokens. Absent: auto compares the two modes' costs (see {@link autoCosts}).
   */
  budgetTokens?: number | undefined;
  /**
   * What auto counts tokens with (loaded once at start, `exposure.encoding`). Default: the
   * character estimate, for embedders and tests that do not load a tokenizer.
   */
  counter?: TokenCounter | undefined;
  /**
   * Ids or globs (`time:now`, `github:*_issue`) of tools listed directly beside the metatools in
   * `metatools` and `auto` exposure — the few an agent should never have to search for. In `auto`
   * they are part of the metatools' side of the comparison, and part of the list either way.
   */
  pinned?: readonly string[] | undefined;
}

/** The two costs `auto` weighs, in tokens (for tests and the console). */
export interface AutoCosts {
  /** The visible tools' flat `tools/list` entries. */
  flat: number;
  /** The metatools' `tools/list` entries plus a typical task's search and describe answers. */
  metatools: number;
}

/** What `tools/list` shows and how a called name maps back to a tool id. */
export interface ExposureView {
  tools: McpTool[];
  /**
   * flat name → tool id, for the tools listed directly — and for the app-only tools (MCP Apps,
   * `visibility: ["app"]`) that would be: hidden from the list, callable by that name.
   */
  direct: Map<string, string>;
  metatools: boolean;
  /** `auto` only: what it decided (a session's record keeps it, docs/FEDERATION.md). */
  listing?: AutoListing;
}

/**
 * Computes the exposure of a scope (docs/DESIGN.md §4): metatools only, every tool flat, or auto — the
 * metatools plus every tool directly while listing them costs the model fewer tokens than working
 * through the metatools would ({@link autoCosts}), or than `budgetTokens` when that is set. Counted
 * with the configured {@link TokenCounter}. Cached per catalog version.
 */
/**
 * Exposure views by scope, shared by the sessions of one gateway. A view is reused only by a
 * session with the same exposure options (a reload gives new sessions new ones) and the same
 * metatools (sessions opened before the first skill have no skill metatools).
 */
export type ExposureCache = WeakMap<ToolScope, SharedView>;

interface SharedView {
  version: number;
  /** The options (without the counter) and the metatools' names the view was made with. */
  key: string;
  counter: ExposureOptions['counter'];
  view: ExposureView;
}

export class Exposure {
  private cached: { version: number; view: ExposureView } | undefined;
  private readonly shared: ExposureCache | undefined;

  private readonly naming: FlatNaming;
  /** How `_meta.ui` resource URIs are named for the client; absent: as the servers wrote them. */
  private readonly resources: ResourceNaming | undefined;
  private readonly extra: readonly Metatool[];
  private readonly isPinned: ((id: string) => boolean) | undefined;
  /** auto: the outcome kept while the scope's catalog is the one it was constructed with. */
  private readonly keep: { listing: AutoListing; version: number } | undefined;

  /**
   * `more.keep` (auto only): what auto decided when the session started on another replica — a
   * session rebuilt here lists its tools the way its client was first shown them, until the
   * catalog changes (then auto decides again, as it would have there).
   */
  constructor(
    private readonly scope: ToolScope,
    private readonly metatools: readonly Metatool[],
    private readonly options: ExposureOptions,
    more: {
      naming?: FlatNaming;
      resources?: ResourceNaming;
      extra?: readonly Metatool[];
      shared?: ExposureCache;
      keep?: AutoListing;
    } = {},
  ) {
    this.naming = more.naming ?? new FlatNaming();
    this.resources = more.resources;
    this.extra = more.extra ?? [];
    this.isPinned = idMatcher(options.pinned);
    this.shared = more.shared;
    this.keep =
      options.mode === 'auto' && more.keep !== undefined
        ? { listing: more.keep, version: scope.version }
        : undefined;
  }

  view(): ExposureView {
    const version = this.scope.version;
    if (this.cached?.version === version) return this.cached.view;
    if (this.keep?.version === version) {
      // Another replica's decision: not this gateway's to share with its other sessions.
      const view = this.compute(this.keep.listing);
      this.cached = { version, view };
      return view;
    }
    // A 2026-07-28 request has a session server of its own: without the shared cache, each
    // would count the catalog's tokens again (auto exposure) for the same answer.
    const shared = this.shared?.get(this.scope);
    const key = this.shared ? this.sharingKey() : '';
    if (shared?.version === version && shared.key === key && shared.counter === this.options.counter) {
      this.cached = shared;
      return shared.view;
    }
    const view = this.compute();
    this.cached = { version, view };
    this.shared?.set(this.scope, { version, key, counter: this.options.counter, view });
    return view;
  }

  private sharingKey(): string {
    const { counter: _counter, ...options } = this.options;
    const metatools = [...this.metatools, ...this.extra].map((metatool) => metatool.name);
    return JSON.stringify([options, metatools, this.resources?.key ?? '']);
  }

  /** The view of the scope now; `decided`: auto's outcome, taken rather than weighed. */
  private compute(decided?: AutoListing): ExposureView {
    const extra = this.extra.map(metatoolEntry);
    const meta = [...this.metatools.map(metatoolEntry), ...extra];
    if (this.options.mode === 'metatools') {
      const pinned = this.pinnedTools(extra);
      if (!pinned) return { tools: meta, direct: this.appOnly(extra, new Map()), metatools: true };
      return {
        tools: [...meta, ...pinned.tools],
        direct: this.appOnly(extra, pinned.direct),
        metatools: true,
      };
    }
    const direct = new Map<string, string>();
    const flat: McpTool[] = [];
    const reserved = new Set(extra.map((e) => e.name));
    for (const [name, tool] of this.naming.assign(this.scope.tools())) {
      if (reserved.has(name)) continue;
      direct.set(name, tool.id);
      if (isModelVisible(tool)) flat.push(flatEntry(tool, name, this.resources));
    }
    if (this.options.mode === 'flat') return { tools: [...extra, ...flat], direct, metatools: false };
    const pinned = this.pinnedTools(extra) ?? { tools: [], direct: new Map<string, string>() };
    if (decided === 'flat') return { tools: [...meta, ...flat], direct, metatools: true, listing: 'flat' };
    if (decided === 'metatools')
      return {
        tools: [...meta, ...pinned.tools],
        direct: this.appOnly(extra, pinned.direct),
        metatools: true,
        listing: 'metatools',
      };
    const counter = this.options.counter ?? approximateTokenCounter;
    const budget = this.options.budgetTokens;
    // Pinned tools are listed in either outcome: on the metatools' side they add to its cost, and
    // a budget has to hold them together with every other tool to list the whole catalog.
    const limit = budget ?? metatoolsCost(this.scope, [...meta, ...pinned.tools], counter);
    const cost = countWithin(flat, counter, limit);
    // A budget is a ceiling the tools may reach; the comparison lists them only when strictly cheaper.
    if (budget !== undefined ? cost <= budget : cost < limit) {
      return { tools: [...meta, ...flat], direct, metatools: true, listing: 'flat' };
    }
    return {
      tools: [...meta, ...pinned.tools],
      direct: this.appOnly(extra, pinned.direct),
      metatools: true,
      listing: 'metatools',
    };
  }

  /**
   * `direct` with the scope's app-only tools (MCP Apps) added under their flat names: an app a
   * host renders for a pinned tool calls its server's app-only tools by those names, though the
   * metatools list no tool flat. Only those tools are named, so a catalog without them costs a
   * field test per tool.
   */
  private appOnly(extra: readonly McpTool[], direct: Map<string, string>): Map<string, string> {
    const hidden = this.scope.tools().filter((tool) => !isModelVisible(tool));
    if (hidden.length === 0) return direct;
    const reserved = new Set(extra.map((e) => e.name));
    const withHidden = new Map(direct);
    for (const [name, tool] of this.naming.assign(hidden))
      if (!reserved.has(name)) withHidden.set(name, tool.id);
    return withHidden;
  }

  /**
   * The pinned tools of the scope as flat entries, named as flat exposure names them; undefined
   * when nothing is pinned. Only the pinned tools are named (a pure function of namespace and
   * name), so metatools exposure of a large catalog does not name every tool on each change.
   */
  private pinnedTools(
    extra: readonly McpTool[],
  ): { tools: McpTool[]; direct: Map<string, string> } | undefined {
    const isPinned = this.isPinned;
    if (!isPinned) return undefined;
    const reserved = new Set(extra.map((e) => e.name));
    const tools: McpTool[] = [];
    const direct = new Map<string, string>();
    for (const [name, tool] of this.naming.assign(this.scope.tools().filter((t) => isPinned(t.id)))) {
      if (reserved.has(name)) continue;
      direct.set(name, tool.id);
      if (isModelVisible(tool)) tools.push(flatEntry(tool, name, this.resources));
    }
    return tools.length === 0 ? undefined : { tools, direct };
  }

  /** What `auto` compares for the scope as it is now (pinned tools on the metatools' side), counted with the configured counter. */
  autoCosts(): AutoCosts {
    const counter = this.options.counter ?? approximateTokenCounter;
    const extra = this.extra.map(metatoolEntry);
    const meta = [...this.metatools.map(metatoolEntry), ...extra, ...(this.pinnedTools(extra)?.tools ?? [])];
    const flat = [...this.naming.assign(this.scope.tools())]
      .filter(([, tool]) => isModelVisible(tool))
      .map(([name, tool]) => flatEntry(tool, name, this.resources));
    return {
      flat: countWithin(flat, counter, Number.POSITIVE_INFINITY),
      metatools: metatoolsCost(this.scope, meta, counter),
    };
  }
}

/**
 * Tokens an agent reads for a typical task through the metatools: their `tools/list` entries, one
 * `search_tools` answer and one `describe_tool` (level `schema`, what run_tool needs) of the top hit.
 * The answers are built the way the metatools build them, from the visible catalog itself rather
 * than a constant measured once, because their size follows the catalog (long descriptions, big
 * schemas). Which tools a search returns depends on the query, so the answer is a full default page
 * of the first tools in id order, and the describe is the mean over that page: a fair sample of
 * the catalog that costs at most one page of counting, whatever the catalog's size. A full page is
 * what most queries get from a catalog of 20 tools or more (BM25 matches any shared word); a narrow
 * query on a smaller catalog gets fewer hits, so near the break-even point this leans towards flat.
 */
function metatoolsCost(scope: ToolScope, meta: readonly McpTool[], counter: TokenCounter): number {
  const sample = scope.tools().slice(0, DEFAULT_PAGE_SIZE);
  const surface = counter.count(JSON.stringify(meta));
  if (sample.length === 0) return surface;
  // Items as search gives them: with a score, descriptions trimmed as the scope trims them.
  const items = sample.map((tool) => toolSummary(tool, 1.2345, scope.descriptionChars));
  const search = { tools: items, strategy: 'bm25' };
  let describe = 0;
  for (const tool of sample) describe += counter.count(JSON.stringify(describeTool(tool, 'schema')));
  return surface + counter.count(JSON.stringify(search)) + Math.round(describe / sample.length);
}

/**
 * Tokens of `tools/list` entries, counted entry by entry and stopped once past `limit`: a large
 * catalog is known to be over after a few hundred entries, not tokenised whole on every change.
 */
function countWithin(entries: readonly McpTool[], counter: TokenCounter, limit: number): number {
  let total = 0;
  for (const entry of entries) {
    total += counter.count(JSON.stringify(entry));
    if (total > limit) return total;
  }
  return total;
}

function metatoolEntry(m: Metatool): McpTool {
  const entry: McpTool = {
    name: m.name,
    title: m.title,
    description: m.description,
    inputSchema: m.inputSchema as McpTool['inputSchema'],
  };
  // No hints means the MCP defaults (a tool that may change anything): not worth sending `{}` every turn.
  if (Object.keys(m.annotations).length > 0) entry.annotations = m.annotations;
  return entry;
}

/** A tool's flat `tools/list` entry; its app's `ui://` resource named as `resources/list` names it. */
export function flatEntry(tool: Tool, name: string, resources?: ResourceNaming): McpTool {
  const entry: McpTool = {
    name,
    description: tool.description,
    inputSchema: tool.inputSchema as McpTool['inputSchema'],
    annotations: tool.annotations,
  };
  if (tool.title !== undefined) entry.title = tool.title;
  if (tool.outputSchema !== undefined) entry.outputSchema = tool.outputSchema as McpTool['outputSchema'];
  if (tool.meta !== undefined) {
    // Only a tool with an app can have a URI to rename: the rest pay one field test.
    entry._meta =
      resources && tool.ui !== undefined ? (resources.toolMetaToClient(tool) ?? tool.meta) : tool.meta;
  }
  return entry;
}
