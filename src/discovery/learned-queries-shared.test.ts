import { describe, expect, it } from 'vitest';
import { MemoryStateStore } from '../foundation/ports/memory-state-store.js';
import { MemorySessionSearches, type SessionSearches } from '../foundation/ports/session-searches.js';
import type { StateStore, StateValue } from '../foundation/ports/state-store.js';
import { LearnedQueries } from './learned-queries.js';

/** Two replicas: each its own state store and memory, one shared record of sessions' searches. */
function replicas(shared: SessionSearches) {
  const errors: unknown[] = [];
  const make = () =>
    new LearnedQueries({
      store: new MemoryStateStore(),
      shared,
      onSharedError: (error) => errors.push(error),
    });
  return { a: make(), b: make(), errors };
}

describe('LearnedQueries with a shared record of sessions’ searches', () => {
  it('learns on one replica the query a search answered on another, for the session that searched', async () => {
    const { a, b, errors } = replicas(new MemorySessionSearches(60_000));
    await a.noteSearch('s1', 'sales report', ['r:weekly', 'r:quarterly']);
    await b.noteRun('s1', 'r:quarterly', true);
    expect(b.text('r:quarterly')).toBe('sales report');
    // Another session's run, a failed run, a tool the search did not list: nothing learned.
    await b.noteRun('s2', 'r:weekly', true);
    await b.noteRun('s1', 'r:weekly', false);
    await b.noteRun('s1', 'other:tool', true);
    expect(b.text('r:weekly')).toBe('');
    expect(b.size).toBe(1);
    expect(errors).toEqual([]);
  });

  it('takes the latest search of the session that listed the tool, whichever replica answered it', async () => {
    const shared = new MemorySessionSearches(60_000);
    const { a, b } = replicas(shared);
    const c = replicas(shared).a;
    await a.noteSearch('s1', 'first words', ['t:one']);
    await b.noteSearch('s1', 'second words', ['t:one', 't:two']);
    await a.noteSearch('s1', 'third words', ['t:two']);
    await c.noteRun('s1', 't:one', true);
    expect(c.text('t:one')).toBe('second words');
  });

  it('learns at once, with no round trip, a search this replica answered', () => {
    const { a } = replicas({
      add: () => Promise.resolve(),
      list: () => Promise.reject(new Error('not asked')),
    });
    void a.noteSearch('s1', 'sales report', ['r:weekly']);
    void a.noteRun('s1', 'r:weekly', true);
    expect(a.text('r:weekly')).toBe('sales report');
  });

  it('falls back to this replica’s own searches when the shared record fails, and says so', async () => {
    const broken: SessionSearches = {
      add: () => Promise.reject(new Error('redis down')),
      list: () => Promise.reject(new Error('redis down')),
    };
    const { a, b, errors } = replicas(broken);
    await a.noteSearch('s1', 'sales report', ['r:weekly']);
    await a.noteRun('s1', 'r:weekly', true);
    expect(a.text('r:weekly')).toBe('sales report');
    await b.noteRun('s1', 'r:weekly', true);
    expect(b.text('r:weekly')).toBe('');
    // The write of the search, and the read of the run on the other replica.
    expect(errors.map((error) => (error as Error).message)).toEqual(['redis down', 'redis down']);
  });

  it('forgets a session’s searches after the session’s TTL', async () => {
    let now = 0;
    const { a, b } = replicas(new MemorySessionSearches(1000, () => now));
    await a.noteSearch('s1', 'sales report', ['r:weekly']);
    now += 1001;
    await b.noteRun('s1', 'r:weekly', true);
    expect(b.text('r:weekly')).toBe('');
  });
});

/**
 * Two state stores that replicate into each other as the Redis one does: a write lands in the
 * other's copy, and the other's watchers hear of it (never of their own writes).
 */
function replicatedPair(): [StateStore, StateStore] {
  const make = () => {
    const local = new MemoryStateStore();
    const listeners = new Set<(scope: string, key: string) => void>();
    return { local, listeners };
  };
  const sides = [make(), make()];
  const storeOf = (me: number): StateStore => {
    const side = sides[me] as ReturnType<typeof make>;
    const other = sides[1 - me] as ReturnType<typeof make>;
    return Object.assign(Object.create(side.local) as StateStore, {
      setMany: (scope: string, entries: readonly (readonly [string, StateValue])[]) => {
        side.local.setMany(scope, entries);
        other.local.setMany(scope, entries);
        for (const [key] of entries) for (const listener of other.listeners) listener(scope, key);
      },
      watch: (listener: (scope: string, key: string) => void) => {
        side.listeners.add(listener);
        return () => side.listeners.delete(listener);
      },
    });
  };
  return [storeOf(0), storeOf(1)];
}

describe('LearnedQueries confirmations on several replicas', () => {
  it('add up when each replica learned the same query before hearing of the other', () => {
    const [storeA, storeB] = replicatedPair();
    const a = new LearnedQueries({ store: storeA as StateStore });
    const b = new LearnedQueries({ store: storeB as StateStore });
    a.learn('r:weekly', 'sales report');
    b.learn('r:weekly', 'sales report');
    a.flush(); // b, unwritten, takes in a's confirmation with its own
    b.flush(); // a takes in b's list, which now holds both
    for (const replica of [a, b]) {
      expect(replica.toolsOf('sales report')[0]?.weight).toBeCloseTo(2, 3);
    }
    // A later confirmation on either adds one more everywhere.
    a.learn('r:weekly', 'sales report');
    a.flush();
    expect(b.toolsOf('sales report')[0]?.weight).toBeCloseTo(3, 3);
    a.close();
    b.close();
  });
});
