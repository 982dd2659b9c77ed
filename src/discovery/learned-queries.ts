import type { SessionSearches } from '../foundation/ports/session-searches.js';
import type { StateStore } from '../foundation/ports/state-store.js';
import { decayed } from './decay.js';
import { DEFAULT_LEARNING } from './search-defaults.js';

/** The state-store scope of learned queries, keyed by tool id. */
export const LEARNED_SCOPE = 'learned-queries';

export interface LearnedQueriesOptions {
  store: StateStore;
  /** Queries kept per tool; the least weighty goes first. Default {@link DEFAULT_LEARNING}. */
  maxPerTool?: number;
  /** How fast a learned query fades. Default {@link DEFAULT_LEARNING}. */
  halfLifeMs?: number;
  /** How long a search stays linked to the runs that follow it in its session. Default 30 minutes. */
  sessionWindowMs?: number;
  /** Searches remembered per session. Default 5. */
  searchesPerSession?: number;
  /** Sessions remembered at once (the least recent are forgotten). Default 1000. */
  maxSessions?: number;
  /**
   * Where every gateway of a deployment keeps the recent searches of a session (Redis, with the
   * session's TTL): then a run answered here learns from a search another replica answered.
   * Without it a session's searches are known to this process only.
   */
  shared?: SessionSearches;
  /** Told when the shared record cannot be read or written (learning then falls back to memory). */
  onSharedError?: (error: unknown) => void;
  now?: () => number;
}

type Learned = { q: string; w: number; at: number };

function isLearned(value: unknown): value is Learned {
  const item = value as Partial<Learned> | null;
  return (
    typeof item === 'object' &&
    item !== null &&
    typeof item.q === 'string' &&
    typeof item.w === 'number' &&
    typeof item.at === 'number'
  );
}

/** A learned query and the tools it led to, under its case-folded text. */
interface QueryEntry {
  /** The query as first learned (case kept: what an embedder reads). */
  text: string;
  tools: Map<string, Learned>;
}

interface RecentSearch {
  query: string;
  ids: ReadonlySet<string>;
  at: number;
}

/** How long learned queries wait in memory before they are written (a crash loses at most this). */
const FLUSH_MS = 1000;

/** Below this weight a learned query no longer counts. */
const FADED = 0.05;

/**
 * Learning from use. When a search is followed, in the same session, by a successful run of one of
 * its results, the search's query is remembered for that tool: next time, a similar query finds it
 * by those words too (search indexes them as the tool's `learned` field). Bounded per tool,
 * decaying (a query repeated gains weight, an old one fades) and persisted in the state store,
 * a second after learning at most (`flush`; the search stack flushes on close).
 */
export class LearnedQueries {
  private readonly byTool = new Map<string, Learned[]>();
  /** The same entries by query (case-folded), for search by similar queries. */
  private readonly byQuery = new Map<string, QueryEntry>();
  private readonly sessions = new Map<string, RecentSearch[]>();
  private readonly listeners = new Set<(toolId: string, query: string) => void>();
  /** Tools learned about since the last write to the store. */
  private readonly dirty = new Set<string>();
  /** Confirmations since the last write, by tool and case-folded query (see `adopt`). */
  private readonly gains = new Map<string, Map<string, number>>();
  private flushTimer: NodeJS.Timeout | undefined;
  private readonly now: () => number;
  private readonly halfLifeMs: number;

  constructor(private readonly options: LearnedQueriesOptions) {
    this.now = options.now ?? Date.now;
    this.halfLifeMs = options.halfLifeMs ?? DEFAULT_LEARNING.halfLifeDays * 86_400_000;
    for (const [id, value] of options.store.entries(LEARNED_SCOPE)) {
      const list = learnedList(value);
      if (list.length === 0) continue;
      this.byTool.set(id, list);
      for (const learned of list) this.link(id, learned);
    }
    // A store shared by several gateways: what another one learned is learned here too.
    this.unwatch = options.store.watch?.((scope, toolId) => {
      if (scope === LEARNED_SCOPE) this.adopt(toolId);
    });
  }

  private readonly unwatch: (() => void) | undefined;

  /**
   * Takes in the list another gateway wrote for `toolId`, merged with this one's by query (the
   * more recently learned of two wins), so that learning not yet written here is not lost. A query
   * both learned keeps their weight plus the confirmations this one made since it last wrote
   * (they are not in theirs): confirmations made on several replicas add up.
   */
  private adopt(toolId: string): void {
    const theirs = learnedList(this.options.store.get(LEARNED_SCOPE, toolId));
    const mine = this.byTool.get(toolId) ?? [];
    const merged = new Map<string, Learned>();
    for (const learned of [...theirs, ...(this.dirty.has(toolId) ? mine : [])]) {
      const key = learned.q.toLowerCase();
      const known = merged.get(key);
      if (!known || learned.at > known.at) merged.set(key, { ...learned });
    }
    const now = this.now();
    const gains = this.gains.get(toolId);
    if (gains) {
      for (const other of theirs) {
        const key = other.q.toLowerCase();
        const gain = gains.get(key);
        const entry = merged.get(key);
        if (!gain || !entry) continue;
        entry.w = decayed(other.w, other.at, now, this.halfLifeMs) + gain;
        entry.at = now;
      }
    }
    const list = [...merged.values()];
    while (list.length > (this.options.maxPerTool ?? DEFAULT_LEARNING.maxQueriesPerTool)) {
      list.splice(this.weakest(list, now), 1);
    }
    for (const learned of mine) this.unlink(toolId, learned);
    if (list.length === 0) this.byTool.delete(toolId);
    else this.byTool.set(toolId, list);
    for (const learned of list) this.link(toolId, learned);
    for (const learned of list) for (const listener of this.listeners) listener(toolId, learned.q);
  }

  /** Writes what is pending and stops following other gateways. */
  close(): void {
    this.flush();
    this.unwatch?.();
  }

  /**
   * A search in `session` returned these tool ids. Noted in memory at once; with a shared record,
   * the promise settles once every replica can see it (it never rejects: a failed write is told to
   * `onSharedError`, and this process still learns from it).
   */
  noteSearch(session: string, query: string, ids: readonly string[]): Promise<void> {
    const text = normalize(query);
    if (!text || ids.length === 0) return Promise.resolve();
    const at = this.now();
    const recent = this.sessions.get(session) ?? [];
    this.sessions.delete(session);
    recent.push({ query: text, ids: new Set(ids), at });
    const keep = this.options.searchesPerSession ?? 5;
    if (recent.length > keep) recent.shift();
    this.sessions.set(session, recent);
    if (this.sessions.size > (this.options.maxSessions ?? 1000)) {
      this.sessions.delete(this.sessions.keys().next().value!);
    }
    const shared = this.options.shared;
    if (!shared) return Promise.resolve();
    return shared.add(session, { query: text, ids: [...ids], at }, keep).catch((error: unknown) => {
      this.options.onSharedError?.(error);
    });
  }

  /**
   * A run of `toolId` in `session` ended; if it succeeded, the latest recent search of the session
   * that listed the tool is learned for it — at once when this process answered it. Otherwise, with
   * a shared record, that search may have been answered by another replica: the record is read
   * (the returned promise settles once learned; it never rejects, and the run never waits for it).
   */
  noteRun(session: string, toolId: string, ok: boolean): Promise<void> {
    if (!ok) return Promise.resolve();
    // A search this replica answered is learned at once, as without a shared record.
    if (this.learnFrom(this.sessions.get(session) ?? [], toolId)) return Promise.resolve();
    const shared = this.options.shared;
    if (!shared) return Promise.resolve();
    return shared.list(session).then(
      (searches) => {
        // Every replica's searches of the session, oldest first (as each appended it).
        this.learnFrom(
          searches.map((search) => ({ ...search, ids: new Set(search.ids) })),
          toolId,
        );
      },
      (error: unknown) => {
        this.options.onSharedError?.(error);
      },
    );
  }

  /**
   * Learns, for `toolId`, the latest search of `recent` (oldest first) within the window that
   * listed it; whether there was one.
   */
  private learnFrom(recent: readonly RecentSearch[], toolId: string): boolean {
    const since = this.now() - (this.options.sessionWindowMs ?? 30 * 60_000);
    for (let i = recent.length - 1; i >= 0; i--) {
      const search = recent[i]!;
      if (search.at < since) break;
      if (search.ids.has(toolId)) {
        this.learn(toolId, search.query);
        return true;
      }
    }
    return false;
  }

  /**
   * Remembers `query` for `toolId` (or strengthens it). On the path of every run that follows a
   * search, so it touches one entry (plus one scan when the tool is full) and defers the write.
   */
  learn(toolId: string, query: string): void {
    const text = normalize(query);
    if (!text) return;
    const now = this.now();
    const list = this.byTool.get(toolId) ?? [];
    this.byTool.set(toolId, list);
    const known = this.byQuery.get(text.toLowerCase())?.tools.get(toolId);
    if (known) {
      known.w = decayed(known.w, known.at, now, this.halfLifeMs) + 1;
      known.at = now;
    } else {
      const learned = { q: text, w: 1, at: now };
      list.push(learned);
      this.link(toolId, learned);
      if (list.length > (this.options.maxPerTool ?? DEFAULT_LEARNING.maxQueriesPerTool)) {
        this.unlink(toolId, list.splice(this.weakest(list, now), 1)[0]!);
      }
    }
    this.dirty.add(toolId);
    const gains = this.gains.get(toolId) ?? new Map<string, number>();
    gains.set(text.toLowerCase(), (gains.get(text.toLowerCase()) ?? 0) + 1);
    this.gains.set(toolId, gains);
    this.flushTimer ??= setTimeout(() => this.flush(), FLUSH_MS).unref();
    for (const listener of this.listeners) listener(toolId, text);
  }

  /**
   * The tools a query (any case) was learned for, with the weight each learned it by now; empty
   * when it was never learned, or has faded everywhere.
   */
  toolsOf(query: string): { toolId: string; weight: number }[] {
    const entry = this.byQuery.get(normalize(query).toLowerCase());
    if (!entry) return [];
    const now = this.now();
    const tools: { toolId: string; weight: number }[] = [];
    for (const [toolId, l] of entry.tools) {
      const weight = decayed(l.w, l.at, now, this.halfLifeMs);
      if (weight >= FADED) tools.push({ toolId, weight });
    }
    return tools;
  }

  /** Every learned query, as first learned (one per case-folded text), least recently learned first. */
  queries(): string[] {
    const latest = (entry: QueryEntry) => Math.max(...[...entry.tools.values()].map((l) => l.at));
    return [...this.byQuery.values()]
      .map((entry) => ({ text: entry.text, at: latest(entry) }))
      .sort((a, b) => a.at - b.at)
      .map((entry) => entry.text);
  }

  /** The learned queries of a tool that still count, weightiest first, as one text. */
  text(toolId: string): string {
    const list = this.byTool.get(toolId);
    if (!list) return '';
    const now = this.now();
    return list
      .map((l) => ({ q: l.q, w: decayed(l.w, l.at, now, this.halfLifeMs) }))
      .filter((l) => l.w >= FADED)
      .sort((a, b) => b.w - a.w)
      .map((l) => l.q)
      .join(' \n ');
  }

  /** Writes what was learned since the last write to the store (also on a timer, and on close). */
  flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const rows = [...this.dirty].map((id) => [id, this.byTool.get(id) ?? []] as const);
    this.dirty.clear();
    this.gains.clear();
    if (rows.length > 0) this.options.store.setMany(LEARNED_SCOPE, rows);
  }

  /** The entry that counts least now; of equals, the newest (it has proved least). */
  private weakest(list: readonly Learned[], now: number): number {
    let index = 0;
    let least = Number.POSITIVE_INFINITY;
    list.forEach((l, i) => {
      const w = decayed(l.w, l.at, now, this.halfLifeMs);
      if (w <= least) {
        least = w;
        index = i;
      }
    });
    return index;
  }

  private link(toolId: string, learned: Learned): void {
    const key = learned.q.toLowerCase();
    let entry = this.byQuery.get(key);
    if (!entry) {
      entry = { text: learned.q, tools: new Map() };
      this.byQuery.set(key, entry);
    }
    entry.tools.set(toolId, learned);
  }

  private unlink(toolId: string, learned: Learned): void {
    const key = learned.q.toLowerCase();
    const entry = this.byQuery.get(key);
    if (!entry) return;
    entry.tools.delete(toolId);
    if (entry.tools.size === 0) this.byQuery.delete(key);
  }

  /**
   * Calls `listener` with a tool id and the query whenever that tool learned a query (its learned
   * text changed); returns the unsubscribe.
   */
  subscribe(listener: (toolId: string, query: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tools with learned queries. */
  get size(): number {
    return this.byTool.size;
  }
}

/**
 * The valid entries of a stored list. The store is a cache that outlives versions and may be
 * damaged: entries of another shape are dropped, not trusted (one would otherwise stop the gateway
 * from starting).
 */
function learnedList(value: unknown): Learned[] {
  return Array.isArray(value) ? (value as unknown[]).filter(isLearned) : [];
}

/** Trimmed, one space between words, at most 500 characters; case is kept (embedders read it). */
function normalize(query: string): string {
  return query.trim().replace(/\s+/g, ' ').slice(0, 500);
}
