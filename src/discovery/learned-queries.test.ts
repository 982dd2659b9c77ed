import { describe, expect, it } from 'vitest';
import { MemoryStateStore } from '../foundation/memory-state-store.js';
import { LEARNED_SCOPE, LearnedQueries } from './learned-queries.js';

const DAY = 86_400_000;

function learner(options: { store?: MemoryStateStore; maxPerTool?: number } = {}) {
  let now = 5_000_000;
  const store = options.store ?? new MemoryStateStore();
  const changes: string[] = [];
  const learned = new LearnedQueries({
    store,
    maxPerTool: options.maxPerTool ?? 50,
    halfLifeMs: 10 * DAY,
    sessionWindowMs: 60_000,
    now: () => now,
  });
  learned.subscribe((id) => changes.push(id));
  return { learned, store, changes, advance: (ms: number) => (now += ms) };
}

describe('LearnedQueries', () => {
  it('learns a query when a run of one of its results succeeds in the same session', () => {
    const { learned, changes } = learner();
    learned.noteSearch('s1', '  Weather   TOMORROW ', ['wx:forecast', 'wx:now']);
    learned.noteRun('s1', 'wx:forecast', true);
    expect(learned.text('wx:forecast')).toBe('weather tomorrow');
    expect(changes).toEqual(['wx:forecast']);
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
    expect(learner({ store }).learned.text('t')).toBe('find the weather');
  });
});
