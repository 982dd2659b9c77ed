import { describe, expect, it } from 'vitest';
import { Postings, type PostingsHandle } from './postings.js';

describe('Postings', () => {
  it('matches a naive model through random adds and removals', () => {
    let seed = 3;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return Math.floor((seed / 2147483648) * n);
    };
    const live = new Map<number, { handle: PostingsHandle; terms: number[] }>();
    const postings = new Postings((slot) => live.get(slot)!.handle);
    for (let step = 0; step < 3000; step++) {
      const slot = random(60);
      const existing = live.get(slot);
      if (existing) {
        postings.removeDocument(existing.handle);
        live.delete(slot);
        expect(postings.get(existing.terms[0]!)?.slots ?? []).not.toContain(slot);
      } else {
        const terms = [...new Set(Array.from({ length: 1 + random(6) }, () => random(12)))];
        live.set(slot, {
          handle: postings.addDocument(
            slot,
            terms,
            terms.map((t) => slot * 100 + t),
          ),
          terms,
        });
      }
    }
    for (let term = 0; term < 12; term++) {
      const expected = [...live]
        .filter(([, doc]) => doc.terms.includes(term))
        .map(([slot]) => [slot, slot * 100 + term])
        .sort((a, b) => a[0]! - b[0]!);
      const list = postings.get(term);
      const actual = (list?.slots ?? [])
        .map((slot, i) => [slot, list!.values[i]])
        .sort((a, b) => a[0]! - b[0]!);
      expect(actual).toEqual(expected);
    }
  });

  it('drops a term whose last posting goes', () => {
    const handles: PostingsHandle[] = [];
    const postings = new Postings((slot) => handles[slot]!);
    const handle = postings.addDocument(0, [5], [1]);
    handles[0] = handle;
    expect(postings.get(5)?.slots).toEqual([0]);
    postings.removeDocument(handle);
    expect(postings.get(5)).toBeUndefined();
  });
});
