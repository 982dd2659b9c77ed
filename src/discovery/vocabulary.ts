import { forEachWord, normalizeWord } from './tokenizer.js';

const STOP = -1;

/**
 * Numbers the terms of one index, so that postings and per-tool term counts are arrays indexed
 * by term id rather than maps keyed by strings. Each word seen while indexing is remembered with
 * its term id (or as a stop word), which makes tokenizing known words a single map lookup.
 *
 * Ids are never reused: a term whose last tool is removed keeps its id. Growth is bounded by the
 * vocabulary of the tool text indexed over the life of the index, never by queries.
 */
export class Vocabulary {
  private readonly idByWord = new Map<string, number>();
  private readonly idByTerm = new Map<string, number>();
  private readonly termById: string[] = [];

  /**
   * @param normalize how a word from `forEachWord` becomes a term (undefined: a stop word).
   *   Default {@link normalizeWord}; another one is for experiments (the removed `bench/tuning/search-tune.ts`).
   */
  constructor(private readonly normalize: (word: string) => string | undefined = normalizeWord) {}

  /** Number of term ids handed out: the length an array indexed by term id needs. */
  get size(): number {
    return this.idByTerm.size;
  }

  /** Calls `emit` with the term id of each token of `text`, in order, adding new terms. */
  forEachTerm(text: string, emit: (id: number) => void): void {
    forEachWord(text, (word) => {
      let id = this.idByWord.get(word);
      if (id === undefined) {
        const term = this.normalize(word);
        id = term === undefined ? STOP : this.termId(term);
        this.idByWord.set(word, id);
      }
      if (id !== STOP) emit(id);
    });
  }

  /** The distinct term ids of `text` that are known; words never indexed cannot match and are left out. */
  lookup(text: string): number[] {
    const ids = new Set<number>();
    forEachWord(text, (word) => {
      let id = this.idByWord.get(word);
      if (id === undefined) {
        const term = this.normalize(word);
        id = term === undefined ? STOP : (this.idByTerm.get(term) ?? STOP);
      }
      if (id !== STOP) ids.add(id);
    });
    return [...ids];
  }

  /** The term (a normalised word) with this id; for explanations. */
  termOf(id: number): string | undefined {
    return this.termById[id];
  }

  private termId(term: string): number {
    let id = this.idByTerm.get(term);
    if (id === undefined) {
      id = this.idByTerm.size;
      this.idByTerm.set(term, id);
      this.termById.push(term);
    }
    return id;
  }
}
