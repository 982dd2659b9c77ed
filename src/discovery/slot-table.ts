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

  /**
   * Stores under `id` (which must not be present) the item `create` makes for the slot it gets
   * (items usually record their slot elsewhere, e.g. in postings), and returns the slot.
   */
  add(id: string, create: (slot: number) => T): number {
    const slot = this.free.pop() ?? this.items.length;
    this.items[slot] = create(slot);
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

  /** The slot of `id`, or undefined when absent. */
  slotOf(id: string): number | undefined {
    return this.slotById.get(id);
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

/** A multimap from a string key to slots (several tools may share a name). */
export class SlotsByKey {
  private readonly map = new Map<string, Set<number>>();

  get(key: string): ReadonlySet<number> | undefined {
    return this.map.get(key);
  }

  add(key: string, slot: number): void {
    let set = this.map.get(key);
    if (!set) {
      set = new Set();
      this.map.set(key, set);
    }
    set.add(slot);
  }

  delete(key: string, slot: number): void {
    const set = this.map.get(key);
    set?.delete(slot);
    if (set?.size === 0) this.map.delete(key);
  }
}
