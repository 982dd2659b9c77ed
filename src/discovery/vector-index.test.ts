import { describe, expect, it } from 'vitest';
import { makeTool } from '../../test/support/test-tools.js';
import { normalizeVector } from '../foundation/embedder.js';
import { VectorIndex } from './vector-index.js';

const v = (...xs: number[]) => normalizeVector(Float32Array.from(xs));

describe('VectorIndex', () => {
  it('ranks by cosine, filters before the limit, replaces and removes', () => {
    const index = new VectorIndex();
    index.set(makeTool('a:near'), v(1, 0.1));
    index.set(makeTool('a:mid'), v(1, 1));
    index.set(makeTool('b:far'), v(-1, 0));
    const query = v(1, 0);
    const hits = index.search(query, { limit: 2 });
    expect(hits.map((h) => h.id)).toEqual(['a:near', 'a:mid']);
    expect(hits[1]!.score).toBeCloseTo(Math.SQRT1_2, 6);
    const filtered = index.search(query, { limit: 1, filter: (t) => t.namespace === 'b' });
    expect(filtered.map((h) => h.id)).toEqual(['b:far']);
    index.set(makeTool('b:far'), v(1, 0));
    expect(index.search(query, { limit: 1 })[0]).toEqual({ id: 'b:far', score: expect.closeTo(1, 6) });
    index.remove('b:far');
    expect(index.has('b:far')).toBe(false);
    expect(index.size).toBe(2);
  });

  it('skips vectors of another length (a model change in progress)', () => {
    const index = new VectorIndex();
    index.set(makeTool('a:x'), v(1, 0, 0));
    expect(index.search(v(1, 0), { limit: 5 })).toEqual([]);
  });
});
