import { describe, expect, it } from 'vitest';
import { MemoryStateStore } from '../foundation/ports/memory-state-store.js';
import { LEARNED_SCOPE, LearnedQueries } from './learned-queries.js';

const DAY = 86_400_000;

function learner(options: { store?: MemoryStateStore; maxPerTool?: number } = {}) {
  let now = 5_000_000;
  const store = options.store ?? new MemoryStateStore();
  const changes: string[] = [];
  const queries: string[] = [];
  const learned = new LearnedQueries({
    store,
    maxPerTool: options.maxPerTool ?? 50,
    halfLifeMs: 10 * DAY,
    sessionWindowMs: 60_000,
    now: () => now,
  });
  learned.subscribe((id, query) => {
    changes.push(id);
    queries.push(query);
  });
  return { learned, store, changes, queries, advance: (ms: number) => (now += ms) };
}

describe('LearnedQueries', () => {
  it('skips stored entries of the wrong shape instead of failing to start', () => {
    const store = new MemoryStateStore();
    store.set(LEARNED_SCOPE, 'a:bad', [1, null, 'text', { q: 7 }, { q: 'kept query', w: 1, at: 5_000_000 }]);
    store.set(LEARNED_SCOPE, 'b:bad', { not: 'a list' });
    const { learned } = learner({ store });
    expect(learned.size).toBe(1);
    expect(learned.queries()).toEqual(['kept query']);
  });

  it('learns a query when a run of one of its results succeeds in the same session', () => {
    const { learned, changes, queries } = learner();
    learned.noteSearch('s1', '  Weather   TOMORROW ', ['wx:forecast', 'wx:now']);
    learned.noteRun('s1', 'wx:forecast', true);
    // Spacing is normalised; case is kept, for embedders.
    expect(learned.text('wx:forecast')).toBe('Weather TOMORROW');
    expect(changes).toEqual(['wx:forecast']);
    expect(queries).toEqual(['Weather TOMORROW']);
  });

  it('knows, per query in any case, the tools it was learned for and by how much', () => {
    const { learned, advance } = learner();
    learned.learn('wx:forecast', 'Weather tomorrow');
    learned.learn('wx:forecast', 'weather TOMORROW');
    learned.learn('wx:now', 'weather tomorrow');
    learned.learn('mail:send', 'send a mail');
    // One entry per case-folded text: the repeat strengthened the first.
    expect(learned.text('wx:forecast')).toBe('Weather tomorrow');
    expect([...learned.queries()].sort()).toEqual(['Weather tomorrow', 'send a mail']);
    expect(learned.toolsOf(' WEATHER  tomorrow ')).toEqual([
      { toolId: 'wx:forecast', weight: 2 },
      { toolId: 'wx:now', weight: 1 },
    ]);
    expect(learned.toolsOf('never learned')).toEqual([]);
    advance(10 * DAY);
    expect(learned.toolsOf('weather tomorrow').map((t) => t.weight)).toEqual([1, 0.5]);
    advance(50 * DAY); // faded everywhere
    expect(learned.toolsOf('weather tomorrow')).toEqual([]);
  });

  it('forgets a query for a tool when the tool drops it, and keeps it for the others', () => {
    const { learned, advance } = learner({ maxPerTool: 1 });
    learned.learn('a', 'first');
    learned.learn('b', 'first');
    advance(10 * DAY); // "first" weighs 0.5 now
    learned.learn('a', 'second'); // weightier: a drops "first"
    learned.learn('a', 'third'); // of equals, the newest is dropped at once
    expect(learned.text('a')).toBe('second');
    expect(learned.toolsOf('first').map((t) => t.toolId)).toEqual(['b']);
    expect(learned.toolsOf('third')).toEqual([]);
    expect([...learned.queries()].sort()).toEqual(['first', 'second']);
  });

  it('learns nothing from a failed run, another session, a tool not in the results, or an old search', () => {
    const { learned, advance } = learner();
    learned.noteSearch('s1', 'weather', ['wx:forecast']);
    learned.noteRun('s1', 'wx:forecast', false);
    learned.noteRun('s2', 'wx:forecast', true);
    learned.noteRun('s1', 'mail:send', true);
    advance(61_000);
    learned.noteRun('s1', 'wx:forecast', true);
    expect(learned.size).toBe(0);
    expect(learned.text('wx:forecast')).toBe('');
  });

  it('credits the latest search of the session that listed the tool', () => {
    const { learned } = learner();
    learned.noteSearch('s', 'forecast', ['wx:forecast']);
    learned.noteSearch('s', 'send mail', ['mail:send']);
    learned.noteRun('s', 'wx:forecast', true);
    expect(learned.text('wx:forecast')).toBe('forecast');
  });

  it('keeps the weightiest queries per tool, repeated ones first, and lets old ones fade', () => {
    const { learned, advance } = learner({ maxPerTool: 2 });
    learned.learn('t', 'alpha');
    learned.learn('t', 'beta');
    learned.learn('t', 'beta');
    learned.learn('t', 'gamma');
    // gamma (newest, weight 1) replaced alpha (decayed to 1 at the same instant: ties keep order).
    expect(learned.text('t').split(' \n ')).toEqual(['beta', 'alpha']);
    advance(60 * DAY); // 6 half-lives: beta 2 → 0.03, below the fade line
    expect(learned.text('t')).toBe('');
  });

  it('persists what it learned', () => {
    const store = new MemoryStateStore();
    const { learned } = learner({ store });
    learned.learn('t', 'find the weather');
    learned.flush();
    expect(store.count(LEARNED_SCOPE)).toBe(1);
    const reloaded = learner({ store }).learned;
    expect(reloaded.text('t')).toBe('find the weather');
    expect(reloaded.toolsOf('Find the weather')).toEqual([{ toolId: 't', weight: 1 }]);
  });
});
