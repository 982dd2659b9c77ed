import { dot } from '../foundation/embedder.js';
import type { Tool } from '../foundation/tool.js';
import type { SearchHit } from './search-index.js';
import { TopK } from './top-k.js';

/**
 * Exact nearest-neighbour search over unit vectors by dot product (cosine similarity). At 10,000
 * tools of 512 dimensions a query is ~5 M multiply-adds, a few milliseconds: an approximate index
 * would not pay for its build time and recall loss at catalog sizes.
 */
export class VectorIndex {
  private readonly vectors = new Map<string, { tool: Tool; vector: Float32Array }>();

  get size(): number {
    return this.vectors.size;
  }

  has(id: string): boolean {
    return this.vectors.has(id);
  }

  /** The vector of a tool, if it has one. */
  get(id: string): Float32Array | undefined {
    return this.vectors.get(id)?.vector;
  }

  /** Adds or replaces the vector of a tool. */
  set(tool: Tool, vector: Float32Array): void {
    this.vectors.set(tool.id, { tool, vector });
  }

  remove(id: string): void {
    this.vectors.delete(id);
  }

  /** The `limit` tools nearest `query`, best first, `filter` applied before the limit; ties by id. */
  search(query: Float32Array, options: { limit: number; filter?: (tool: Tool) => boolean }): SearchHit[] {
    const top = new TopK(options.limit);
    for (const [id, { tool, vector }] of this.vectors) {
      if (vector.length !== query.length) continue;
      const score = dot(query, vector);
      if (!top.admits(score, id)) continue;
      if (options.filter && !options.filter(tool)) continue;
      top.push({ id, score });
    }
    return top.sorted();
  }
}
