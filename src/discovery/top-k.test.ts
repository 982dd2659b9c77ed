import { describe, expect, it } from 'vitest';
import { compareHits, type SearchHit } from './search-index.js';
import { TopK } from './top-k.js';

describe('TopK', () => {
  it('keeps the same hits, in the same order, as sorting everything', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (const k of [1, 2, 5, 20, 200]) {
      // Few distinct scores, so that ties by id matter.
      const hits: SearchHit[] = Array.from({ length: 150 }, (_, i) => ({
        id: `t${String(Math.floor(random() * 1000)).padStart(4, '0')}-${i}`,
        score: Math.floor(random() * 8),
      }));
      const top = new TopK(k);
      for (const hit of hits) top.push(hit);
      expect(top.sorted()).toEqual([...hits].sort(compareHits).slice(0, k));
    }
  });

  it('admits only what would enter, and exposes the entry threshold once full', () => {
    const top = new TopK(2);
    expect(top.threshold).toBe(Number.NEGATIVE_INFINITY);
    top.push({ id: 'b', score: 1 });
    top.push({ id: 'c', score: 3 });
    expect(top.threshold).toBe(1);
    expect(top.admits(0.5, 'a')).toBe(false);
    expect(top.admits(1, 'a')).toBe(true);
    expect(top.admits(1, 'z')).toBe(false);
    top.push({ id: 'a', score: 1 });
    expect(top.sorted()).toEqual([
      { id: 'c', score: 3 },
      { id: 'a', score: 1 },
    ]);
  });

  it('keeps nothing when k is 0', () => {
    const top = new TopK(0);
    top.push({ id: 'a', score: 1 });
    expect(top.sorted()).toEqual([]);
  });
});
