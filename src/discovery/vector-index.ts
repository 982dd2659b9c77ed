import type { Tool } from '../foundation/model/tool.js';
import { createDotKernel, type DotKernel } from './dot-kernel.js';
import type { SearchHit } from './search-index.js';
import { TopK } from './top-k.js';

/** Where the rows live and how they are scored: the SIMD kernel's memory, or a plain array. */
type Scorer = DotKernel;

/** The JavaScript stand-in for the SIMD kernel (same memory layout, same results). */
function plainScorer(): Scorer {
  const scorer: Scorer = {
    floats: new Float32Array(0),
    reserve(bytes) {
      if (scorer.floats.byteLength >= bytes) return;
      const grown = new Float32Array(Math.max(bytes / 4, scorer.floats.length * 2));
      grown.set(scorer.floats);
      scorer.floats = grown;
    },
    dots(matrix, query, rows, rowBytes, out) {
      const f = scorer.floats;
      const width = rowBytes / 4;
      const q = query / 4;
      for (let r = 0, base = matrix / 4; r < rows; r++, base += width) {
        let sum = 0;
        for (let j = 0; j < width; j++) sum += f[base + j]! * f[q + j]!;
        f[out / 4 + r] = sum;
      }
    },
  };
  return scorer;
}

/**
 * Exact nearest-neighbour search over unit vectors by dot product (cosine similarity). The rows
 * sit in one contiguous float32 matrix scored by a WebAssembly SIMD kernel (`dot-kernel.ts`): at
 * 10,000 tools of 512 dimensions a query takes a few milliseconds, where an approximate index would
 * not pay for its build time and recall loss at catalog sizes. Memory layout: the matrix from 0
 * (rows padded to a multiple of four floats), then the query, then one score per row. Removing a
 * tool moves the last row into its place, so the matrix has no holes.
 */
export class VectorIndex<T extends { readonly id: string } = Tool> {
  private dimensions = 0;
  /** Floats per row: the dimensions rounded up to a multiple of four (SIMD lanes). */
  private stride = 0;
  private capacity = 0;
  private readonly scorer: Scorer;
  private readonly rows: { id: string; item: T }[] = [];
  private readonly rowOf = new Map<string, number>();

  constructor(options: { simd?: boolean } = {}) {
    this.scorer = (options.simd !== false && createDotKernel()) || plainScorer();
  }

  get size(): number {
    return this.rows.length;
  }

  has(id: string): boolean {
    return this.rowOf.has(id);
  }

  /** The vector of an item, if it has one (a copy). */
  get(id: string): Float32Array | undefined {
    const row = this.rowOf.get(id);
    if (row === undefined) return undefined;
    const start = row * this.stride;
    return this.scorer.floats.slice(start, start + this.dimensions);
  }

  /**
   * Adds or replaces the vector of an item (a tool, by default). A vector of another length than
   * the ones indexed (the model changed) starts the index afresh with it.
   */
  set(item: T, vector: Float32Array): void {
    if (vector.length !== this.dimensions) this.reset(vector.length);
    let row = this.rowOf.get(item.id);
    if (row === undefined) {
      row = this.rows.length;
      this.rows.push({ id: item.id, item });
      this.rowOf.set(item.id, row);
      if (this.rows.length > this.capacity) this.grow(Math.max(64, Math.ceil(this.capacity * 1.5)));
    } else {
      this.rows[row] = { id: item.id, item };
    }
    this.scorer.floats.set(vector, row * this.stride);
  }

  remove(id: string): void {
    const row = this.rowOf.get(id);
    if (row === undefined) return;
    const last = this.rows.length - 1;
    if (row !== last) {
      const moved = this.rows[last]!;
      this.rows[row] = moved;
      this.rowOf.set(moved.id, row);
      this.scorer.floats.copyWithin(row * this.stride, last * this.stride, (last + 1) * this.stride);
    }
    this.rows.pop();
    this.rowOf.delete(id);
  }

  /** The `limit` items nearest `query`, best first, `filter` applied before the limit; ties by id. */
  search(
    query: Float32Array,
    options: { limit: number; filter?: ((item: T) => boolean) | undefined },
  ): SearchHit[] {
    if (query.length !== this.dimensions || this.rows.length === 0) return [];
    const rowBytes = this.stride * 4;
    const queryAt = this.capacity * rowBytes;
    const outAt = queryAt + rowBytes;
    const floats = this.scorer.floats;
    floats.fill(0, queryAt / 4, outAt / 4);
    floats.set(query, queryAt / 4);
    this.scorer.dots(0, queryAt, this.rows.length, rowBytes, outAt);
    const scores = this.scorer.floats.subarray(outAt / 4, outAt / 4 + this.rows.length);
    const top = new TopK(options.limit);
    for (let row = 0; row < scores.length; row++) {
      const score = scores[row]!;
      if (score < top.threshold) continue;
      const { id, item } = this.rows[row]!;
      if (!top.admits(score, id)) continue;
      if (options.filter && !options.filter(item)) continue;
      top.push({ id, score });
    }
    return top.sorted();
  }

  private reset(dimensions: number): void {
    this.dimensions = dimensions;
    this.stride = Math.ceil(dimensions / 4) * 4;
    this.rows.length = 0;
    this.rowOf.clear();
    this.capacity = 0;
    this.grow(64);
  }

  /** Room for `capacity` rows, the query and their scores; rows already there stay in place. */
  private grow(capacity: number): void {
    this.capacity = capacity;
    const rowBytes = this.stride * 4;
    this.scorer.reserve(capacity * rowBytes + rowBytes + Math.ceil(capacity / 4) * 16);
  }
}
