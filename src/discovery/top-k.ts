import { compareHits, type SearchHit } from './search-index.js';

/**
 * Keeps the best `k` hits seen so far in a bounded min-heap (worst hit at the root), so that
 * ranking m candidates costs O(m log k) instead of sorting all m. Order is {@link compareHits}.
 */
export class TopK {
  private readonly heap: SearchHit[] = [];

  constructor(private readonly k: number) {}

  /**
   * A score below which no hit can enter any more (-Infinity until the heap is full): a check
   * that needs no id, for the hot loop.
   */
  get threshold(): number {
    return this.heap.length < this.k ? Number.NEGATIVE_INFINITY : this.heap[0]!.score;
  }

  /**
   * Whether a hit with this score and id would enter the heap. Callers check it before paying
   * for anything else (a filter call, an allocation).
   */
  admits(score: number, id: string): boolean {
    if (this.k <= 0) return false;
    if (this.heap.length < this.k) return true;
    const worst = this.heap[0];
    return worst !== undefined && (score > worst.score || (score === worst.score && id < worst.id));
  }

  /** Offers a hit; it is kept only if it is among the best `k` so far. */
  push(hit: SearchHit): void {
    if (!this.admits(hit.score, hit.id)) return;
    const heap = this.heap;
    if (heap.length < this.k) {
      heap.push(hit);
      this.siftUp(heap.length - 1);
    } else {
      heap[0] = hit;
      this.siftDown(0);
    }
  }

  /** The kept hits, best first. */
  sorted(): SearchHit[] {
    return [...this.heap].sort(compareHits);
  }

  /** True when `a` ranks below `b` (belongs nearer the root of the min-heap). */
  private worse(a: SearchHit, b: SearchHit): boolean {
    return compareHits(a, b) > 0;
  }

  private siftUp(index: number): void {
    const heap = this.heap;
    let i = index;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const node = heap[i]!;
      const up = heap[parent]!;
      if (!this.worse(node, up)) break;
      heap[i] = up;
      heap[parent] = node;
      i = parent;
    }
  }

  private siftDown(index: number): void {
    const heap = this.heap;
    const n = heap.length;
    let i = index;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let worst = i;
      if (left < n && this.worse(heap[left]!, heap[worst]!)) worst = left;
      if (right < n && this.worse(heap[right]!, heap[worst]!)) worst = right;
      if (worst === i) return;
      const tmp = heap[i]!;
      heap[i] = heap[worst]!;
      heap[worst] = tmp;
      i = worst;
    }
  }
}
