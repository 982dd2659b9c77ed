/** The documents (slots) containing one term, each with a number: a term frequency, a weight. */
export interface PostingList {
  readonly slots: number[];
  readonly values: number[];
}

/**
 * An inverted index: term id → posting list. Lists are parallel number arrays rather than Maps
 * because a query walks whole lists, and plain arrays walk several times faster; the price is a
 * linear `indexOf` on removal, paid once per term of a removed document.
 */
export class Postings {
  private readonly lists: (PostingList | undefined)[] = [];

  /** The list for `term`; do not mutate it. Its order is arbitrary. */
  get(term: number): PostingList | undefined {
    return this.lists[term];
  }

  /** Records that `slot` contains `term`. The caller adds each (term, slot) pair at most once. */
  add(term: number, slot: number, value: number): void {
    let list = this.lists[term];
    if (!list) {
      list = { slots: [], values: [] };
      this.lists[term] = list;
    }
    list.slots.push(slot);
    list.values.push(value);
  }

  /** Forgets that `slot` contains `term`. */
  remove(term: number, slot: number): void {
    const list = this.lists[term];
    if (!list) return;
    const at = list.slots.indexOf(slot);
    if (at < 0) return;
    // Swap with the last entry: order carries no meaning, and this keeps removal O(1) after the scan.
    const last = list.slots.length - 1;
    list.slots[at] = list.slots[last]!;
    list.values[at] = list.values[last]!;
    list.slots.pop();
    list.values.pop();
    if (last === 0) this.lists[term] = undefined;
  }
}
