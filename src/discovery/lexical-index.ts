import type { Tool } from '../foundation/model/tool.js';
import { Postings, type PostingsHandle } from './postings.js';
import type { SearchExtras, SearchHit, SearchIndex, SearchOptions } from './search-index.js';
import { ensureLength, SlotsByKey, SlotTable } from './slot-table.js';
import { tokenize } from './tokenizer.js';
import { TOOL_FIELDS, toolFields } from './tool-fields.js';
import { TopK } from './top-k.js';
import { Vocabulary } from './vocabulary.js';

interface Doc {
  id: string;
  tool: Tool;
  postings: PostingsHandle;
  /** The id, lowercase, with everything but letters and digits removed: `GitHub:create_issue` → githubcreateissue. */
  compactId: string;
}

/** All compact ids in one string, so that a substring scan is one native search, not N. */
interface Haystack {
  text: string;
  /** Offset in `text` where each entry starts, ascending; `slots` holds the entry's slot. */
  starts: number[];
  slots: number[];
}

// Per-slot candidate marks during a query.
const TOUCHED = 1;
const SUBSTRING = 2;
const EXACT = 4;

/**
 * Token-overlap search: cheap, predictable, no corpus statistics. For the distinct query tokens Q,
 *
 *   score = Σ_{q ∈ Q} w(q) / (2·|Q|)  +  0.5 if the query is a substring of the id (name included)
 *                                     +  1   if the query equals the name or the id
 *
 * where w(q) = 2 when q is in the tool's name, 1 when it is only in another field (namespace,
 * title, description, tags, parameters), else 0. The overlap part lies in [0, 1]. Equality ignores
 * case; substring tests also ignore separators, so "createissue" and "create issue" both find
 * `create_issue`, and "git" finds `github:…` without sharing a token.
 */
export class LexicalIndex implements SearchIndex {
  readonly strategy = 'lexical' as const;
  private readonly docs = new SlotTable<Doc>();
  private readonly vocabulary = new Vocabulary();
  /** term → slots, each with w(term) for that tool (2 for a name term, else 1). */
  private readonly postings = new Postings((slot) => this.docs.at(slot)!.postings);
  private readonly byExactKey = new SlotsByKey();
  private haystack: Haystack | undefined;
  // Term-indexed, all zeros between upserts: w(term) for the tool being indexed.
  private termWeights = new Uint8Array(256);
  // Slot-indexed, all zeros between queries.
  private overlap = new Float64Array(64);
  private marks = new Uint8Array(64);

  get size(): number {
    return this.docs.size;
  }

  upsert(tool: Tool, extra: SearchExtras = {}): void {
    this.remove(tool.id);
    const fields = toolFields(tool, extra.learned ? { learned: extra.learned } : {});
    const terms: number[] = [];
    const note = (weight: number) => (term: number) => {
      if (term >= this.termWeights.length) {
        this.termWeights = ensureLength(this.termWeights, term + 1, (n) => new Uint8Array(n));
      }
      if (this.termWeights[term] === 0) terms.push(term);
      if (this.termWeights[term]! < weight) this.termWeights[term] = weight;
    };
    this.vocabulary.forEachTerm(tool.name, note(2));
    for (const field of TOOL_FIELDS) this.vocabulary.forEachTerm(fields[field], note(1));
    const weights = terms.map((term) => this.termWeights[term]!);
    for (const term of terms) this.termWeights[term] = 0;
    const slot = this.docs.add(tool.id, (slot) => ({
      id: tool.id,
      tool,
      postings: this.postings.addDocument(slot, terms, weights),
      compactId: compact(tool.id),
    }));
    this.overlap = ensureLength(this.overlap, this.docs.capacity, (n) => new Float64Array(n));
    this.marks = ensureLength(this.marks, this.docs.capacity, (n) => new Uint8Array(n));
    for (const key of exactKeys(tool)) this.byExactKey.add(key, slot);
    this.haystack = undefined;
  }

  remove(id: string): void {
    const removed = this.docs.remove(id);
    if (!removed) return;
    const { slot, item: doc } = removed;
    this.postings.removeDocument(doc.postings);
    for (const key of exactKeys(doc.tool)) this.byExactKey.delete(key, slot);
    this.haystack = undefined;
  }

  search(query: string, options: SearchOptions): SearchHit[] {
    const limit = Math.floor(options.limit);
    if (!(limit > 0) || this.docs.size === 0) return [];
    const { overlap, marks } = this;
    // Unknown words still count in |Q|: a query half made of unknown words matches at most half.
    const queryTerms = new Set(tokenize(query)).size;
    const touched: number[] = [];
    const touch = (slot: number, mark: number) => {
      if (marks[slot] === 0) touched.push(slot);
      marks[slot]! |= mark;
    };
    for (const term of this.vocabulary.lookup(query)) {
      const list = this.postings.get(term);
      if (!list) continue;
      const { slots, values } = list;
      for (let i = 0; i < slots.length; i++) {
        touch(slots[i]!, TOUCHED);
        overlap[slots[i]!]! += values[i]!;
      }
    }
    const compactQuery = compact(query);
    if (compactQuery.length >= 2) this.scanSubstrings(compactQuery, (slot) => touch(slot, SUBSTRING));
    for (const slot of this.byExactKey.get(query.trim().toLowerCase()) ?? []) touch(slot, EXACT);

    const top = new TopK(limit);
    for (const slot of touched) {
      const mark = marks[slot]!;
      let score = queryTerms > 0 ? overlap[slot]! / (2 * queryTerms) : 0;
      if ((mark & SUBSTRING) !== 0) score += 0.5;
      if ((mark & EXACT) !== 0) score += 1;
      overlap[slot] = 0;
      marks[slot] = 0;
      if (score <= 0 || score < top.threshold) continue;
      const doc = this.docs.at(slot)!;
      if (top.admits(score, doc.id) && (options.filter?.(doc.tool) ?? true)) top.push({ id: doc.id, score });
    }
    return top.sorted();
  }

  /** Calls `found` with the slot of every tool whose compact id contains `needle`. */
  private scanSubstrings(needle: string, found: (slot: number) => void): void {
    this.haystack ??= this.buildHaystack();
    const { text, starts, slots } = this.haystack;
    let from = 0;
    for (;;) {
      const at = text.indexOf(needle, from);
      if (at < 0) return;
      // The entry holding `at`: the last start ≤ at.
      let lo = 0;
      let hi = starts.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (starts[mid]! <= at) lo = mid;
        else hi = mid - 1;
      }
      found(slots[lo]!);
      // One hit per entry is enough; resume at the next entry.
      from = starts[lo + 1] ?? text.length;
    }
  }

  private buildHaystack(): Haystack {
    const parts: string[] = [];
    const starts: number[] = [];
    const slots: number[] = [];
    let offset = 0;
    for (let slot = 0; slot < this.docs.capacity; slot++) {
      const doc = this.docs.at(slot);
      if (!doc) continue;
      starts.push(offset);
      slots.push(slot);
      parts.push(doc.compactId);
      // The separator cannot occur in a compact query, so no match spans two entries.
      offset += doc.compactId.length + 1;
    }
    return { text: parts.join('\n'), starts, slots };
  }
}

function exactKeys(tool: Tool): string[] {
  return [tool.id.toLowerCase(), tool.name.toLowerCase()];
}

function compact(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}
