/**
 * The recent searches of an MCP session, kept where every gateway of a deployment sees them, so
 * that a run answered by one replica teaches the search another replica answered (learning from
 * use behind a balancer with no affinity). Implementations: the Redis one in operations/state/
 * (`RedisSessionSearches`, one list per session expiring with the session's idle TTL). A single
 * gateway needs none: learned queries keep a session's searches in memory.
 */
export interface SessionSearch {
  /** The query, normalized (trimmed, one space between words). */
  query: string;
  /** The tool ids of the page the search answered. */
  ids: readonly string[];
  /** When it was answered (epoch ms). */
  at: number;
}

export interface SessionSearches {
  /**
   * Appends a search of `session`, keeping the latest `keep`; the session's record lives on for
   * the session's TTL from now. Rejects when the shared store cannot be written.
   */
  add(session: string, search: SessionSearch, keep: number): Promise<void>;
  /** The session's recent searches, oldest first; empty when none (or expired). */
  list(session: string): Promise<SessionSearch[]>;
}

/**
 * The reference {@link SessionSearches}, in memory (one process): tests, and the contract every
 * shared implementation is held to. The TTL is checked on read, from `now`.
 */
export class MemorySessionSearches implements SessionSearches {
  private readonly sessions = new Map<string, { searches: SessionSearch[]; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async add(session: string, search: SessionSearch, keep: number): Promise<void> {
    const searches = (await this.list(session)).concat({ ...search, ids: [...search.ids] });
    this.sessions.set(session, { searches: searches.slice(-keep), until: this.now() + this.ttlMs });
  }

  async list(session: string): Promise<SessionSearch[]> {
    const record = this.sessions.get(session);
    if (!record) return [];
    if (record.until <= this.now()) {
      this.sessions.delete(session);
      return [];
    }
    return record.searches.map((search) => ({ ...search, ids: [...search.ids] }));
  }
}
