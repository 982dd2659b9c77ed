/** The documents (slots) containing one term, each with a number: a term frequency, a weight. */
export interface PostingList {
  readonly slots: number[];
  readonly values: number[];
}

/**
 * An inverted index: term → posting list. Lists are parallel arrays rather than Maps because a
 * query walks whole lists, and plain number arrays walk several times faster; the price is a
 * linear `indexOf` on removal, paid once per term of a removed document.
 */
export class Postings {
  private readonly lists = new Map<string, PostingList>();

  /** Number of distinct terms. */
  get terms(): number {
    return this.lists.size;
  }

  /** The list for `term`; do not mutate it. Its order is arbitrary. */
  get(term: string): PostingList | undefined {
    return this.lists.get(term);
  }

  /** Records that `slot` contains `term`. The caller adds each (term, slot) pair at most once. */
  add(term: string, slot: number, value: number): void {
    let list = this.lists.get(term);
    if (!list) {
      list = { slots: [], values: [] };
      this.lists.set(term, list);
    }
    list.slots.push(slot);
    list.values.push(value);
  }

  /** Forgets that `slot` contains `term`; drops the term when no slot is left. */
  remove(term: string, slot: number): void {
    const list = this.lists.get(term);
    if (!list) return;
    const at = list.slots.indexOf(slot);
    if (at < 0) return;
    // Swap with the last entry: order carries no meaning, and this keeps removal O(1) after the scan.
    const last = list.slots.length - 1;
    list.slots[at] = list.slots[last]!;
    list.values[at] = list.values[last]!;
    list.slots.pop();
    list.values.pop();
    if (last === 0) this.lists.delete(term);
  }
}
