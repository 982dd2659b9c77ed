/**
 * Documents of an index in numbered slots, so that postings and per-query score buffers can be
 * plain numbers and typed arrays indexed by slot. Freed slots are reused; `capacity` only grows.
 */
export class SlotTable<T> {
  private readonly items: (T | undefined)[] = [];
  private readonly slotById = new Map<string, number>();
  private readonly free: number[] = [];

  /** Number of documents held. */
  get size(): number {
    return this.slotById.size;
  }

  /** One more than the highest slot ever used: the length a slot-indexed buffer needs. */
  get capacity(): number {
    return this.items.length;
  }

  /** Stores `item` under `id` (which must not be present) and returns its slot. */
  add(id: string, item: T): number {
    const slot = this.free.pop() ?? this.items.length;
    this.items[slot] = item;
    this.slotById.set(id, slot);
    return slot;
  }

  /** Removes `id`, returning its slot and item, or undefined when absent. */
  remove(id: string): { slot: number; item: T } | undefined {
    const slot = this.slotById.get(id);
    if (slot === undefined) return undefined;
    const item = this.items[slot]!;
    this.items[slot] = undefined;
    this.slotById.delete(id);
    this.free.push(slot);
    return { slot, item };
  }

  /** The item in `slot`, or undefined for a free slot. */
  at(slot: number): T | undefined {
    return this.items[slot];
  }
}

/** A copy of `buffer` at least `length` long (doubling), or `buffer` itself when long enough. */
export function ensureLength<B extends Float64Array | Uint8Array>(
  buffer: B,
  length: number,
  make: (n: number) => B,
): B {
  if (buffer.length >= length) return buffer;
  const grown = make(Math.max(length, buffer.length * 2));
  grown.set(buffer);
  return grown;
}
