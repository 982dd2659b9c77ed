import { integerAtLeast } from '../../../foundation/util/option-checks.js';
import type { SessionDirectory, SessionRecord } from './session-directory.js';

export interface InMemorySessionDirectoryOptions {
  /** How long a record outlives its last `put` or `touch`. */
  ttlMs: number;
  /** The clock (tests move it); default `Date.now`. */
  now?: () => number;
}

/**
 * A {@link SessionDirectory} in this process's memory: the reference implementation, and two
 * gateways in one process can share it. Expired records are dropped when next looked at, and by a
 * sweep on `put` so that ids nobody asks for again do not pile up.
 */
export function inMemorySessionDirectory(options: InMemorySessionDirectoryOptions): SessionDirectory {
  const ttlMs = integerAtLeast(options.ttlMs, 1, 'inMemorySessionDirectory ttlMs');
  const now = options.now ?? Date.now;
  const records = new Map<string, { json: string; expires: number }>();
  let nextSweep = 0;
  // Stored as JSON, as a shared store would: a caller never holds the stored object itself.
  const live = (id: string) => {
    const entry = records.get(id);
    if (entry && entry.expires <= now()) {
      records.delete(id);
      return undefined;
    }
    return entry;
  };
  return {
    async put(id, record) {
      const at = now();
      if (at >= nextSweep) {
        for (const [key, entry] of records) if (entry.expires <= at) records.delete(key);
        nextSweep = at + ttlMs;
      }
      records.set(id, { json: JSON.stringify(record), expires: at + ttlMs });
    },
    async get(id) {
      const entry = live(id);
      return entry ? (JSON.parse(entry.json) as SessionRecord) : undefined;
    },
    async touch(id) {
      const entry = live(id);
      if (!entry) return undefined;
      entry.expires = now() + ttlMs;
      return JSON.parse(entry.json) as SessionRecord;
    },
    async delete(id) {
      const known = live(id) !== undefined;
      records.delete(id);
      return known;
    },
  };
}
