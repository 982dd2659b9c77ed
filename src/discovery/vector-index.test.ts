import { describe, expect, it } from 'vitest';
import { makeTool } from '../../test/support/test-tools.js';
import { dot, normalizeVector } from '../foundation/ports/embedder.js';
import { createDotKernel } from './dot-kernel.js';
import { VectorIndex } from './vector-index.js';

const v = (...xs: number[]) => normalizeVector(Float32Array.from(xs));

/** A seeded pseudo-random unit vector. */
function randomVector(seed: number, dimensions: number): Float32Array {
  let state = seed;
  return normalizeVector(
    Float32Array.from({ length: dimensions }, () => {
      state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
      return state / 2 ** 31 - 0.5;
    }),
  );
}

describe('dot kernel', () => {
  it('is available here (WebAssembly SIMD)', () => {
    expect(createDotKernel()).toBeDefined();
  });
});

describe.each([
  ['SIMD', true],
  ['plain', false],
] as const)('VectorIndex (%s)', (_name, simd) => {
  it('ranks by cosine, filters before the limit, replaces and removes', () => {
    const index = new VectorIndex({ simd });
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

  it('scores exactly what a dot product gives, across growth, padding and removals', () => {
    const dimensions = 37; // not a multiple of four: rows are padded
    const index = new VectorIndex({ simd });
    const vectors = new Map<string, Float32Array>();
    for (let i = 0; i < 300; i++) {
      const vector = randomVector(i + 1, dimensions);
      vectors.set(`t:${i}`, vector);
      index.set(makeTool(`t:${i}`), vector);
    }
    for (let i = 0; i < 300; i += 3) {
      index.remove(`t:${i}`);
      vectors.delete(`t:${i}`);
    }
    expect(index.size).toBe(200);
    expect([...index.get('t:1')!]).toEqual([...vectors.get('t:1')!]);
    const query = randomVector(999, dimensions);
    const expected = [...vectors]
      .map(([id, vector]) => ({ id, score: dot(query, vector) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, 10);
    const hits = index.search(query, { limit: 10 });
    expect(hits.map((h) => h.id)).toEqual(expected.map((e) => e.id));
    for (const [i, hit] of hits.entries()) expect(hit.score).toBeCloseTo(expected[i]!.score, 5);
  });

  it('starts afresh when the vector length changes (a new model), and finds nothing for another length', () => {
    const index = new VectorIndex({ simd });
    index.set(makeTool('a:x'), v(1, 0, 0));
    expect(index.search(v(1, 0), { limit: 5 })).toEqual([]);
    index.set(makeTool('a:y'), v(1, 0));
    expect(index.size).toBe(1);
    expect(index.search(v(1, 0), { limit: 5 }).map((h) => h.id)).toEqual(['a:y']);
  });
});
