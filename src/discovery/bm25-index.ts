import { GatewayError } from '../foundation/gateway-error.js';
import type { Tool } from '../foundation/tool.js';
import { Postings, type PostingsHandle } from './postings.js';
import type { SearchHit, SearchIndex, SearchOptions } from './search-index.js';
import { ensureLength, SlotsByKey, SlotTable } from './slot-table.js';
import { TOOL_FIELDS, type ToolFields, toolFields } from './tool-fields.js';
import { TopK } from './top-k.js';
import { Vocabulary } from './vocabulary.js';

/** How much one occurrence of a term in each field counts. */
export type Bm25FieldWeights = Record<keyof ToolFields, number>;

/**
 * Default field weights. A tool's name and namespace say what it is; a word in a parameter's
 * description is weak evidence.
 */
export const DEFAULT_BM25_FIELD_WEIGHTS: Readonly<Bm25FieldWeights> = Object.freeze({
  name: 3,
  namespace: 2,
  title: 2,
  description: 1,
  tags: 1.5,
  paramNames: 1,
  paramDescriptions: 0.5,
});

/** Options of {@link Bm25Index}. */
export interface Bm25IndexOptions {
  /** Term-frequency saturation. Default 1.2. Must be ≥ 0. */
  k1?: number;
  /** Length normalisation, 0 (none) to 1 (full). Default 0.75. */
  b?: number;
  /** Per-field weights, merged over {@link DEFAULT_BM25_FIELD_WEIGHTS}. Each must be ≥ 0 (0 = not indexed). */
  fieldWeights?: Partial<Bm25FieldWeights>;
  /**
   * Lift a tool whose id or name equals the query (case-insensitive) above every other hit.
   * Default true.
   */
  exactMatchBoost?: boolean;
}

interface Doc {
  id: string;
  tool: Tool;
  postings: PostingsHandle;
  /** Weighted length: Σ field weight × tokens. */
  length: number;
}

/**
 * Okapi BM25 over a weighted bag of terms per tool. Each field's tokens count with the field's
 * weight, so term frequency and document length are weighted sums; idf is the non-negative
 * variant ln(1 + (N − df + 0.5) / (df + 0.5)):
 *
 *   score(q, d) = Σ_{t ∈ q} idf(t) · tf(t,d)·(k1 + 1) / (tf(t,d) + k1·(1 − b + b·len(d)/avglen))
 *
 * Repeated query terms count once. An inverted index means a query only touches the tools that
 * contain one of its terms; upsert and remove adjust postings, document frequencies and the
 * average length in place.
 */
export class Bm25Index implements SearchIndex {
  readonly strategy = 'bm25' as const;
  private readonly k1: number;
  private readonly b: number;
  private readonly weights: Bm25FieldWeights;
  private readonly exactMatchBoost: boolean;
  private readonly docs = new SlotTable<Doc>();
  private readonly vocabulary = new Vocabulary();
  private readonly postings = new Postings((slot) => this.docs.at(slot)!.postings);
  private readonly byExactId = new SlotsByKey();
  private readonly byExactName = new SlotsByKey();
  private totalLength = 0;
  // Slot-indexed: document lengths, and a score accumulator that is all zeros between queries.
  private lengths = new Float64Array(64);
  private scores = new Float64Array(64);
  // Term-indexed, all zeros between upserts: the weighted term counts of the tool being indexed.
  private counts = new Float64Array(256);

  constructor(options: Bm25IndexOptions = {}) {
    this.k1 = options.k1 ?? 1.2;
    this.b = options.b ?? 0.75;
    this.weights = { ...DEFAULT_BM25_FIELD_WEIGHTS, ...options.fieldWeights };
    this.exactMatchBoost = options.exactMatchBoost ?? true;
    if (!(Number.isFinite(this.k1) && this.k1 >= 0)) {
      throw badOption(`k1 must be a number ≥ 0, got ${this.k1}`);
    }
    if (!(Number.isFinite(this.b) && this.b >= 0 && this.b <= 1)) {
      throw badOption(`b must be a number between 0 and 1, got ${this.b}`);
    }
    for (const field of TOOL_FIELDS) {
      const weight = this.weights[field];
      if (!(Number.isFinite(weight) && weight >= 0)) {
        throw badOption(`fieldWeights.${field} must be a number ≥ 0, got ${weight}`);
      }
    }
  }

  get size(): number {
    return this.docs.size;
  }

  upsert(tool: Tool): void {
    this.remove(tool.id);
    const fields = toolFields(tool);
    const terms: number[] = [];
    let length = 0;
    for (const field of TOOL_FIELDS) {
      const weight = this.weights[field];
      if (weight === 0) continue;
      this.vocabulary.forEachTerm(fields[field], (term) => {
        if (term >= this.counts.length) {
          this.counts = ensureLength(this.counts, term + 1, (n) => new Float64Array(n));
        }
        if (this.counts[term] === 0) terms.push(term);
        this.counts[term]! += weight;
        length += weight;
      });
    }
    const values = terms.map((term) => this.counts[term]!);
    for (const term of terms) this.counts[term] = 0;
    const slot = this.docs.add(tool.id, (slot) => ({
      id: tool.id,
      tool,
      postings: this.postings.addDocument(slot, terms, values),
      length,
    }));
    this.lengths = ensureLength(this.lengths, this.docs.capacity, (n) => new Float64Array(n));
    this.scores = ensureLength(this.scores, this.docs.capacity, (n) => new Float64Array(n));
    this.lengths[slot] = length;
    this.totalLength += length;
    this.byExactId.add(tool.id.toLowerCase(), slot);
    this.byExactName.add(tool.name.toLowerCase(), slot);
  }

  remove(id: string): void {
    const removed = this.docs.remove(id);
    if (!removed) return;
    const { slot, item: doc } = removed;
    this.postings.removeDocument(doc.postings);
    this.byExactId.delete(doc.id.toLowerCase(), slot);
    this.byExactName.delete(doc.tool.name.toLowerCase(), slot);
    this.totalLength -= doc.length;
    // Float drift must not leave a phantom length behind once the index is empty.
    if (this.docs.size === 0) this.totalLength = 0;
  }

  search(query: string, options: SearchOptions): SearchHit[] {
    const limit = Math.floor(options.limit);
    const n = this.docs.size;
    if (!(limit > 0) || n === 0) return [];
    const { scores, lengths, k1, b } = this;
    const touched: number[] = [];
    const avgLength = this.totalLength / n || 1;
    // The length normalisation k1·(1 − b + b·len/avg) as base + perUnit·len.
    const base = k1 * (1 - b);
    const perUnit = (k1 * b) / avgLength;
    const k1Plus1 = k1 + 1;
    for (const term of this.vocabulary.lookup(query)) {
      const list = this.postings.get(term);
      if (!list) continue;
      const { slots, values } = list;
      const df = slots.length;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (let i = 0; i < df; i++) {
        const slot = slots[i]!;
        const tf = values[i]!;
        const before = scores[slot]!;
        // Every contribution is > 0 (idf > 0, tf > 0), so 0 marks a slot not yet touched.
        if (before === 0) touched.push(slot);
        scores[slot] = before + (idf * tf * k1Plus1) / (tf + base + perUnit * lengths[slot]!);
      }
    }
    if (this.exactMatchBoost) this.boostExactMatches(query.trim().toLowerCase(), touched);

    const top = new TopK(limit);
    for (const slot of touched) {
      const score = scores[slot]!;
      scores[slot] = 0;
      if (score < top.threshold) continue;
      const doc = this.docs.at(slot)!;
      // Ask the filter only about hits that would make the page: it may be costly.
      if (score > 0 && top.admits(score, doc.id) && (options.filter?.(doc.tool) ?? true)) {
        top.push({ id: doc.id, score });
      }
    }
    return top.sorted();
  }

  /**
   * Raises exact id matches above exact name matches above every other hit, keeping BM25 order
   * within each group: with M the best plain score, a name match scores M + 1 + own, an id match
   * 2M + 2 + own. The scale stays relative to the query, with no magic constant.
   */
  private boostExactMatches(key: string, touched: number[]): void {
    if (key === '') return;
    const ids = this.byExactId.get(key);
    const names = this.byExactName.get(key);
    if (!ids && !names) return;
    const scores = this.scores;
    let max = 0;
    for (const slot of touched) max = Math.max(max, scores[slot]!);
    const lift = (slot: number, by: number) => {
      if (scores[slot] === 0) touched.push(slot);
      scores[slot]! += by;
    };
    for (const slot of names ?? []) if (!ids?.has(slot)) lift(slot, max + 1);
    for (const slot of ids ?? []) lift(slot, 2 * max + 2);
  }
}

function badOption(message: string): GatewayError {
  return new GatewayError('invalid_request', `Bm25Index: ${message}`);
}
