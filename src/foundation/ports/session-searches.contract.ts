import { describe, expect, it } from 'vitest';
import type { SessionSearches } from './session-searches.js';

/** Searches under test, and the way to let time pass for them (a fake clock or a real wait). */
export interface SessionSearchesUnderTest {
  searches: SessionSearches;
  elapse(ms: number): Promise<void>;
}

/**
 * What every {@link SessionSearches} must do. `create(ttlMs)` gives a fresh, empty record whose
 * sessions live `ttlMs` after their last `add`; the TTL case uses 1000 ms and lets 600 ms pass at
 * a time, so a real store runs it with real waits.
 */
export function describeSessionSearchesContract(
  name: string,
  create: (ttlMs: number) => Promise<SessionSearchesUnderTest> | SessionSearchesUnderTest,
): void {
  describe(`SessionSearches contract: ${name}`, () => {
    it('lists a session’s searches oldest first, field for field, and nothing for another session', async () => {
      const { searches } = await create(60_000);
      await searches.add('s1', { query: 'send a message', ids: ['a:send', 'b:post'], at: 1 }, 5);
      await searches.add('s1', { query: 'sales report', ids: ['c:report'], at: 2 }, 5);
      expect(await searches.list('s1')).toEqual([
        { query: 'send a message', ids: ['a:send', 'b:post'], at: 1 },
        { query: 'sales report', ids: ['c:report'], at: 2 },
      ]);
      expect(await searches.list('s2')).toEqual([]);
    });

    it('keeps only the latest `keep` searches', async () => {
      const { searches } = await create(60_000);
      for (let n = 1; n <= 4; n++) await searches.add('s1', { query: `q${n}`, ids: ['t'], at: n }, 2);
      expect((await searches.list('s1')).map((search) => search.query)).toEqual(['q3', 'q4']);
    });

    it('forgets a session its TTL after its last search, and a new search renews it', async () => {
      const { searches, elapse } = await create(1000);
      await searches.add('s1', { query: 'q1', ids: ['t'], at: 1 }, 5);
      await elapse(600);
      await searches.add('s1', { query: 'q2', ids: ['t'], at: 2 }, 5);
      await elapse(600);
      expect((await searches.list('s1')).map((search) => search.query)).toEqual(['q1', 'q2']);
      await elapse(600);
      expect(await searches.list('s1')).toEqual([]);
    });
  });
}
