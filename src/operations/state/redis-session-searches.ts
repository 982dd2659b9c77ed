import type { Redis } from 'ioredis';
import type { SessionSearch, SessionSearches } from '../../foundation/ports/session-searches.js';
import { integerAtLeast, optionError } from '../../foundation/util/option-checks.js';

export interface RedisSessionSearchesOptions {
  /** A connected (or connecting) client; never closed here. */
  redis: Redis;
  /** Prefix of every key (`state.redis.prefix`); default `aperture:`. */
  prefix?: string;
  /** How long a session's searches outlive its last search (`http.sessionIdleMs`). */
  ttlMs: number;
}

/**
 * {@link SessionSearches} in Redis: one list per session (`<prefix>search:recent:<session>`, a
 * JSON search per item) whose key expiry is the session's idle TTL, so a session's record ends on
 * every replica without a sweep. `add` is one transaction (RPUSH, LTRIM, PEXPIRE: one round trip);
 * `list` one LRANGE. Items of another shape (a damaged or older record) are skipped, not trusted.
 */
export class RedisSessionSearches implements SessionSearches {
  private readonly redis: Redis;
  private readonly prefix: string;
  private readonly ttlMs: number;

  constructor(options: RedisSessionSearchesOptions) {
    if (!options.redis || typeof options.redis.multi !== 'function')
      throw optionError('RedisSessionSearches redis', 'must be an ioredis client');
    this.redis = options.redis;
    this.prefix = `${options.prefix ?? 'aperture:'}search:recent:`;
    this.ttlMs = integerAtLeast(options.ttlMs, 1, 'RedisSessionSearches ttlMs');
  }

  async add(session: string, search: SessionSearch, keep: number): Promise<void> {
    const key = this.prefix + session;
    const item = JSON.stringify({ q: search.query, ids: search.ids, at: search.at });
    const results = await this.redis
      .multi()
      .rpush(key, item)
      .ltrim(key, -Math.max(1, keep), -1)
      .pexpire(key, this.ttlMs)
      .exec();
    const failed = results?.find(([error]) => error);
    if (failed?.[0]) throw failed[0];
  }

  async list(session: string): Promise<SessionSearch[]> {
    const items = await this.redis.lrange(this.prefix + session, 0, -1);
    const searches: SessionSearch[] = [];
    for (const item of items) {
      const search = parse(item);
      if (search) searches.push(search);
    }
    return searches;
  }
}

function parse(item: string): SessionSearch | undefined {
  try {
    const value = JSON.parse(item) as { q?: unknown; ids?: unknown; at?: unknown };
    if (typeof value.q !== 'string' || typeof value.at !== 'number' || !Array.isArray(value.ids))
      return undefined;
    const ids = value.ids.filter((id): id is string => typeof id === 'string');
    return { query: value.q, ids, at: value.at };
  } catch {
    return undefined;
  }
}
