import { isDeepStrictEqual } from 'node:util';
import { GatewayError } from '../foundation/model/gateway-error.js';
import type { Tool } from '../foundation/model/tool.js';
import { parseToolId } from '../foundation/model/tool-id.js';
import type { CatalogChange, CatalogEntry } from './catalog-entry.js';
import type { ToolGate, Withheld } from './tool-gate.js';
import type { ToolOverrides } from './tool-overrides.js';
import { schemaProblemOf, unusableName } from './tool-problems.js';

export interface CatalogOptions {
  /** Change events are batched over this window. Default 25 ms; 0 emits on the next tick. */
  debounceMs?: number;
  /** Applied to every entry a source adds (renames, hidden tools, fixed arguments…). */
  overrides?: ToolOverrides;
  /**
   * Decides, entry by entry, whether a source's tool is served or withheld (trust on first use,
   * quarantine). A withheld tool is absent from every listing and lookup; `withheld` tells why.
   */
  gate?: ToolGate;
}

/** A tool the gate holds back, as `Catalog.withheld` reports it. */
export interface WithheldTool extends Withheld {
  /** The tool as callers would see it (overrides applied). */
  tool: Tool;
  sourceId: string;
}

type Listener = (change: CatalogChange) => void;

/**
 * The registry of tools. Each source owns a set of tools and replaces it wholesale or entry by
 * entry; ids are unique across sources (the first source to register an id keeps it). Every
 * mutation bumps `version` at once; listeners hear about mutations in debounced batches.
 */
export class Catalog {
  private readonly entries = new Map<string, CatalogEntry>();
  private readonly bySource = new Map<string, Set<string>>();
  private readonly listeners = new Set<Listener>();
  private readonly debounceMs: number;
  private pending: { added: Set<string>; removed: Set<string>; updated: Set<string> } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private sortedCache: Tool[] | undefined;
  private _version = 0;
  private overrides: ToolOverrides | undefined;
  /** Each source entry's overridden form (null: hidden), so re-adding an unchanged entry is no change. */
  private applied = new WeakMap<CatalogEntry, CatalogEntry | null>();
  private readonly gate: ToolGate | undefined;
  /**
   * What each source last published, before overrides: new overrides (a config reload) are
   * applied to these, since the overridden forms may have renamed or hidden tools, and a gate's
   * changed verdict (an approval) is applied to them again.
   */
  private readonly published = new Map<string, readonly CatalogEntry[]>();
  /** With a gate: the tools it holds back, by the id callers would use, per source. */
  private readonly withheldBySource = new Map<string, Map<string, WithheldTool>>();
  private readonly schemaProblems = new WeakMap<CatalogEntry, string | null>();
  private readonly unusable = new Map<string, string>();
  private readonly unusableNames = new Map<string, string>();

  constructor(options: CatalogOptions = {}) {
    this.debounceMs = options.debounceMs ?? 25;
    this.overrides = options.overrides?.empty === false ? options.overrides : undefined;
    this.gate = options.gate;
  }

  /** The gate's verdict on a source entry; records a withheld one under its visible id. */
  private admitted(
    sourceId: string,
    sourceEntry: CatalogEntry,
    entry: CatalogEntry,
    withheld: Map<string, WithheldTool>,
  ): boolean {
    const verdict = this.gate?.check(sourceEntry);
    if (!verdict) return true;
    withheld.set(entry.tool.id, { ...verdict, tool: entry.tool, sourceId });
    return false;
  }

  /**
   * A tool the gate holds back under this id (callers' id, overrides applied), or undefined. What
   * lets a lookup answer `tool_quarantined` instead of `tool_not_found`.
   */
  withheld(id: string): WithheldTool | undefined {
    for (const tools of this.withheldBySource.values()) {
      const found = tools.get(id);
      if (found) return found;
    }
    return undefined;
  }

  /** Every tool the gate holds back now, sorted by id. */
  withheldTools(): WithheldTool[] {
    return [...this.withheldBySource.values()]
      .flatMap((tools) => [...tools.values()])
      .sort((a, b) => (a.tool.id < b.tool.id ? -1 : a.tool.id > b.tool.id ? 1 : 0));
  }

  /**
   * Asks the gate again about every source's last published tools (after an approval), or only
   * those of `sourceIds`: a tool approved now joins the catalog, as an ordinary change event.
   */
  regate(sourceIds?: ReadonlySet<string>): void {
    if (!this.gate) return;
    for (const [sourceId, entries] of [...this.published]) {
      if (!sourceIds || sourceIds.has(sourceId)) this.replaceSource(sourceId, entries);
    }
  }

  /** The entry as callers see it after overrides; undefined when an override hides it. */
  private visible(entry: CatalogEntry): CatalogEntry | undefined {
    if (!this.overrides) return entry;
    let result = this.applied.get(entry);
    if (result === undefined) {
      result = this.overrides.apply(entry) ?? null;
      this.applied.set(entry, result);
    }
    return result ?? undefined;
  }

  /**
   * Replaces the overrides (a config reload) and re-applies them to every source's tools. A tool
   * whose merged override is the same as before keeps its entry, so only tools the change touches
   * are reported updated (or added, removed when a rename or `hidden` changed).
   */
  setOverrides(overrides: ToolOverrides): void {
    const before = this.overrides;
    const after = overrides.empty ? undefined : overrides;
    const previous = this.applied;
    this.overrides = after;
    this.applied = new WeakMap();
    for (const entries of this.published.values()) {
      for (const entry of entries) {
        if (!previous.has(entry)) continue;
        if (isDeepStrictEqual(before?.resolve(entry.tool), after?.resolve(entry.tool))) {
          this.applied.set(entry, previous.get(entry) ?? null);
        }
      }
    }
    // In publication order, so the source that registered an id first keeps it.
    for (const [sourceId, entries] of [...this.published]) this.replaceSource(sourceId, entries);
  }

  /**
   * Tells everyone the visible catalog may have changed though no tool did (the toolsets were
   * redefined): the version moves, so views and cursors recompute, and listeners get an empty
   * batch — an MCP session sends `tools/list_changed` for it.
   */
  touch(): void {
    this._version++;
    this.pending ??= { added: new Set(), removed: new Set(), updated: new Set() };
    if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), this.debounceMs);
      this.timer.unref?.();
    }
  }

  /** Increases with every mutation; cursors and caches are keyed on it. */
  get version(): number {
    return this._version;
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * Replaces all tools of `sourceId` with `entries`. Returns the ids that were refused because
   * another source already owns them.
   */
  replaceSource(sourceId: string, entries: readonly CatalogEntry[]): string[] {
    const previous = this.bySource.get(sourceId) ?? new Set<string>();
    if (entries.length > 0) this.published.set(sourceId, entries);
    else this.published.delete(sourceId);
    const next = new Set<string>();
    const refused: string[] = [];
    const withheld = new Map<string, WithheldTool>();
    // Ids this publication already used: a second tool under one id is refused before the gate
    // sees it, so the gate never compares two different tools as versions of one (which flapped
    // between "trusted" and "changed" on every listing).
    const seen = new Set<string>();
    for (const sourceEntry of entries) {
      const entry = this.visible(sourceEntry);
      if (!entry) continue;
      const nameProblem = unusableName(sourceEntry.tool) ?? unusableName(entry.tool);
      if (nameProblem) {
        refused.push(entry.tool.id);
        this.unusableNames.set(entry.tool.id, nameProblem);
        continue;
      }
      this.unusableNames.delete(entry.tool.id);
      const problem = this.schemaProblem(entry);
      if (problem) {
        refused.push(entry.tool.id);
        this.unusable.set(entry.tool.id, problem);
        continue;
      }
      this.unusable.delete(entry.tool.id);
      const id = entry.tool.id;
      if (seen.has(id)) {
        refused.push(id);
        continue;
      }
      seen.add(id);
      if (this.gate && !this.admitted(sourceId, sourceEntry, entry, withheld)) continue;
      const owner = this.ownerOf(id);
      if ((owner !== undefined && owner !== sourceId) || next.has(id)) {
        refused.push(id);
        continue;
      }
      next.add(id);
      const before = this.entries.get(id);
      this.entries.set(id, entry);
      if (!before) this.note('added', id);
      else if (before !== entry) this.note('updated', id);
    }
    for (const id of previous) {
      if (!next.has(id)) {
        this.entries.delete(id);
        this.note('removed', id);
      }
    }
    if (next.size > 0) this.bySource.set(sourceId, next);
    else this.bySource.delete(sourceId);
    if (this.gate) {
      this.gate.settled?.(sourceId, entries);
      if (withheld.size > 0) this.withheldBySource.set(sourceId, withheld);
      else this.withheldBySource.delete(sourceId);
    }
    return refused;
  }

  /**
   * Why the tool `id` was last refused for an unusable schema — a pattern the linear-time regex
   * engine cannot run, or nesting deeper than `MAX_SCHEMA_DEPTH` — as `"<tool id>: <pointer>:
   * <reason>"`, or undefined. Such a tool is refused when it arrives (the rest of its source
   * serves), so it never fails on its first call, nor takes its whole source down, instead.
   */
  unusableSchema(id: string): string | undefined {
    return this.unusable.get(id);
  }

  /**
   * Why the tool `id` was last refused for its name: a control, invisible or bidirectional
   * character (`isValidToolName`), which would let one tool pass for another in a listing, a log
   * or a terminal. Undefined when it was not.
   */
  unusableName(id: string): string | undefined {
    return this.unusableNames.get(id);
  }

  private schemaProblem(entry: CatalogEntry): string | undefined {
    let problem = this.schemaProblems.get(entry);
    if (problem === undefined) {
      const found = schemaProblemOf(entry.tool);
      problem = found === undefined ? null : `${entry.tool.id}: ${found}`;
      this.schemaProblems.set(entry, problem);
    }
    return problem ?? undefined;
  }

  /** Adds or replaces one tool of `sourceId`. Throws `invalid_request` if another source owns the id. */
  upsert(sourceId: string, sourceEntry: CatalogEntry): void {
    const entry = this.visible(sourceEntry);
    const nameProblem = unusableName(sourceEntry.tool) ?? (entry && unusableName(entry.tool));
    if (nameProblem) throw new GatewayError('invalid_request', `Unusable tool name: ${nameProblem}`);
    const problem = entry && this.schemaProblem(entry);
    if (problem) throw new GatewayError('invalid_request', `Unusable JSON Schema in ${problem}`);
    const kept = (this.published.get(sourceId) ?? []).filter((e) => e.tool.id !== sourceEntry.tool.id);
    if (!entry) {
      this.published.set(sourceId, [...kept, sourceEntry]);
      return;
    }
    if (this.gate) {
      // One entry through the same path as a whole source, so the gate and `regate` see it.
      const others = kept.filter((e) => this.visible(e)?.tool.id !== entry.tool.id);
      const refused = this.replaceSource(sourceId, [...others, sourceEntry]);
      if (refused.includes(entry.tool.id)) {
        throw new GatewayError(
          'invalid_request',
          `Tool id "${entry.tool.id}" is already registered by "${this.ownerOf(entry.tool.id)}"`,
        );
      }
      return;
    }
    const owner = this.ownerOf(entry.tool.id);
    if (owner !== undefined && owner !== sourceId) {
      throw new GatewayError(
        'invalid_request',
        `Tool id "${entry.tool.id}" is already registered by "${owner}"`,
      );
    }
    this.published.set(sourceId, [...kept, sourceEntry]);
    const set = this.bySource.get(sourceId) ?? new Set<string>();
    const existed = this.entries.has(entry.tool.id);
    set.add(entry.tool.id);
    this.bySource.set(sourceId, set);
    this.entries.set(entry.tool.id, entry);
    this.note(existed ? 'updated' : 'added', entry.tool.id);
  }

  /** Removes one tool, or every tool of the source when `toolId` is omitted. */
  remove(sourceId: string, toolId?: string): void {
    if (toolId === undefined) {
      this.replaceSource(sourceId, []);
      return;
    }
    const published = this.published.get(sourceId);
    if (published) {
      // Forgotten from what was published too, or a reload or `regate` would bring it back.
      const kept = published.filter((e) => e.tool.id !== toolId && this.visible(e)?.tool.id !== toolId);
      if (kept.length > 0) this.published.set(sourceId, kept);
      else this.published.delete(sourceId);
      this.withheldBySource.get(sourceId)?.delete(toolId);
    }
    const set = this.bySource.get(sourceId);
    if (!set?.delete(toolId)) return;
    this.entries.delete(toolId);
    if (set.size === 0) this.bySource.delete(sourceId);
    this.note('removed', toolId);
  }

  /**
   * Looks a tool up by id. `ns:name:version` matches only that version; `ns:name` matches the tool
   * whatever its version.
   */
  get(id: string): CatalogEntry | undefined {
    const direct = this.entries.get(id);
    if (direct) return direct;
    const parts = safeParse(id);
    if (!parts) return undefined;
    const base = this.entries.get(`${parts.namespace}:${parts.name}`);
    if (base && (parts.version === undefined || base.tool.version === parts.version)) return base;
    if (parts.version === undefined) {
      for (const entry of this.entries.values()) {
        if (entry.tool.namespace === parts.namespace && entry.tool.name === parts.name) return entry;
      }
    }
    return undefined;
  }

  /** All tools, sorted by id (a stable order for paging). The array is shared: do not mutate. */
  tools(): readonly Tool[] {
    if (!this.sortedCache) {
      this.sortedCache = [...this.entries.values()]
        .map((e) => e.tool)
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    }
    return this.sortedCache;
  }

  /** Namespaces with their tool counts, sorted by name. */
  namespaces(): { namespace: string; tools: number }[] {
    const counts = new Map<string, number>();
    for (const tool of this.tools()) counts.set(tool.namespace, (counts.get(tool.namespace) ?? 0) + 1);
    return [...counts]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([namespace, tools]) => ({ namespace, tools }));
  }

  /** Subscribes to debounced change batches; returns the unsubscribe function. */
  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** How many change listeners are subscribed (one per live MCP session; a leak shows here). */
  get listenerCount(): number {
    return this.listeners.size;
  }

  /** Emits any pending batch now (used at shutdown and in tests). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = undefined;
    if (!batch) return;
    const change: CatalogChange = {
      version: this._version,
      added: [...batch.added],
      removed: [...batch.removed],
      updated: [...batch.updated],
    };
    for (const listener of this.listeners) listener(change);
  }

  private ownerOf(id: string): string | undefined {
    if (!this.entries.has(id)) return undefined;
    for (const [source, ids] of this.bySource) if (ids.has(id)) return source;
    return undefined;
  }

  private note(kind: 'added' | 'removed' | 'updated', id: string): void {
    this._version++;
    this.sortedCache = undefined;
    this.pending ??= { added: new Set(), removed: new Set(), updated: new Set() };
    const p = this.pending;
    // Fold successive mutations of one id within a batch into the net effect.
    if (kind === 'removed') {
      if (p.added.delete(id)) return;
      p.updated.delete(id);
      p.removed.add(id);
    } else if (kind === 'added') {
      if (p.removed.delete(id)) p.updated.add(id);
      else p.added.add(id);
    } else if (!p.added.has(id)) {
      p.updated.add(id);
    }
    if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), this.debounceMs);
      this.timer.unref?.();
    }
  }
}

function safeParse(id: string) {
  try {
    return parseToolId(id);
  } catch {
    return undefined;
  }
}
