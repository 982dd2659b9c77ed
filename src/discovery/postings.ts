/** The documents (slots) containing one term, each with a number: a term frequency, a weight. */
export interface PostingList {
  readonly slots: number[];
  readonly values: number[];
}

/** Where one document's postings are, so that removing it is O(its terms), not O(list lengths). */
export interface PostingsHandle {
  readonly terms: number[];
  /** `positions[i]`: the index of this document in the list of `terms[i]`; kept current on moves. */
  readonly positions: number[];
}

/**
 * An inverted index: term id → posting list. Lists are parallel number arrays rather than Maps
 * because a query walks whole lists, and plain arrays walk several times faster. Removal swaps the
 * last entry into the hole and tells that entry's document its new position, so removing every
 * tool of a large source stays linear.
 */
export class Postings {
  private readonly lists: ({ slots: number[]; values: number[] } | undefined)[] = [];

  /** @param handleOf the handle `addDocument` returned for the document in a slot. */
  constructor(private readonly handleOf: (slot: number) => PostingsHandle) {}

  /** The list for `term`; do not mutate it. Its order is arbitrary. */
  get(term: number): PostingList | undefined {
    return this.lists[term];
  }

  /**
   * Adds the postings of the document in `slot`: `terms` (distinct) with their `values`.
   * Keep the handle to remove them.
   */
  addDocument(slot: number, terms: readonly number[], values: readonly number[]): PostingsHandle {
    const handle: PostingsHandle = { terms: [...terms], positions: [] };
    for (let i = 0; i < terms.length; i++) {
      const term = terms[i]!;
      let list = this.lists[term];
      if (!list) {
        list = { slots: [], values: [] };
        this.lists[term] = list;
      }
      handle.positions.push(list.slots.length);
      list.slots.push(slot);
      list.values.push(values[i]!);
    }
    return handle;
  }

  /** Removes every posting of the document behind `handle`. */
  removeDocument(handle: PostingsHandle): void {
    for (let i = 0; i < handle.terms.length; i++) {
      const term = handle.terms[i]!;
      const list = this.lists[term];
      if (!list) continue;
      const at = handle.positions[i]!;
      const last = list.slots.length - 1;
      if (at !== last) {
        const moved = list.slots[last]!;
        const owner = this.handleOf(moved);
        list.slots[at] = moved;
        list.values[at] = list.values[last]!;
        // A document has tens of terms: finding this one in its handle is cheaper than storing it.
        owner.positions[owner.terms.indexOf(term)] = at;
      }
      list.slots.pop();
      list.values.pop();
      if (last === 0) this.lists[term] = undefined;
    }
  }
}
