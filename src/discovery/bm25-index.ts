import type { Tool } from '../foundation/model/tool.js';
import { numberInRange } from '../foundation/util/option-checks.js';
import { BM25_DEFAULTS, type Bm25Field, type Bm25FieldValues } from './bm25-defaults.js';
import { Postings, type PostingsHandle } from './postings.js';
import type { SearchExtras, SearchHit, SearchIndex, SearchOptions, WeightedText } from './search-index.js';
import { ensureLength, SlotsByKey, SlotTable } from './slot-table.js';
import { TOOL_FIELDS, toolFields } from './tool-fields.js';
import { TopK } from './top-k.js';
import { Vocabulary } from './vocabulary.js';

export { BM25_DEFAULTS, type Bm25Field, type Bm25FieldValues } from './bm25-defaults.js';

/** Options of {@link Bm25Index}; every value not given is taken from {@link BM25_DEFAULTS}. */
export interface Bm25IndexOptions {
  /** Term-frequency saturation. Must be ≥ 0. */
  k1?: number | undefined;
  /**
   * Length normalisation per field, 0 (none) to 1 (full); one number sets every field, an object
   * sets the fields it names.
   */
  b?: number | Partial<Bm25FieldValues> | undefined;
  /** How much one occurrence of a term counts in each field. Each must be ≥ 0 (0 = not indexed). */
  boosts?: Partial<Bm25FieldValues> | undefined;
  /**
   * Lift a tool whose id or name equals the query (case-insensitive) above every other hit.
   * Default true.
   */
  exactMatchBoost?: boolean | undefined;
  /**
   * How a word becomes a term (undefined: a stop word). Default: the tokenizer's `normalizeWord`
   * (stop words dropped, Porter2 stems). For experiments, such as comparing stemmers.
   */
  normalizeWord?: (word: string) => string | undefined;
}

/** The options of an index with every default filled in (see {@link resolveBm25Options}). */
export interface Bm25Parameters {
  k1: number;
  b: Bm25FieldValues;
  boosts: Bm25FieldValues;
}

/** Fills in the defaults and checks every value; a bad one is `config_invalid`. */
export function resolveBm25Options(options: Bm25IndexOptions = {}): Bm25Parameters {
  const k1 = options.k1 ?? BM25_DEFAULTS.k1;
  numberInRange(k1, 0, Number.POSITIVE_INFINITY, 'Bm25Index k1');
  const b: Bm25FieldValues =
    typeof options.b === 'number'
      ? (Object.fromEntries(TOOL_FIELDS.map((field) => [field, options.b])) as Bm25FieldValues)
      : { ...BM25_DEFAULTS.b, ...options.b };
  const boosts: Bm25FieldValues = { ...BM25_DEFAULTS.boosts, ...options.boosts };
  for (const field of TOOL_FIELDS) {
    numberInRange(b[field], 0, 1, `Bm25Index b.${field}`);
    numberInRange(boosts[field], 0, Number.POSITIVE_INFINITY, `Bm25Index boosts.${field}`);
  }
  return { k1, b, boosts };
}

/** Why a tool matched a query in BM25F (see {@link Bm25Index.explain}); plain JSON. */
export interface Bm25Explanation {
  /** The BM25F score, before any exact-match lift. */
  score: number;
  /** Per field, the sum of its parts of the score. */
  fields: Partial<Record<Bm25Field, number>>;
  /** Per query term (as indexed: lowercased, stemmed), its part of the score in each field. */
  terms: Record<string, Partial<Record<Bm25Field, number>>>;
  /** The query was the tool's id or name, which lifts it above every other hit. */
  exactMatch?: 'id' | 'name';
}

interface Doc {
  id: string;
  tool: Tool;
  /** Postings keyed by field term (term × FIELD_COUNT + field), valued by the term's count there. */
  postings: PostingsHandle;
  /** The distinct terms of the tool over all fields: what it adds to document frequencies. */
  terms: number[];
}

const FIELD_COUNT = TOOL_FIELDS.length;

/**
 * BM25F (Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond", 2009):
 * each field is length-normalised on its own, the boosted, normalised term frequencies of all
 * fields are added up, and only that sum is saturated, so that a word repeated across fields
 * counts like a word repeated in one field rather than once per field. One idf for the tool as a
 * whole. For a query term t and a tool d with fields f:
 *
 *   tf̃(t,d) = Σ_f boost_f · tf(t,d,f) / (1 − b_f + b_f · len(d,f) / avglen_f)
 *   score(q,d) = Σ_{t ∈ q} idf(t) · tf̃(t,d) · (k1 + 1) / (tf̃(t,d) + k1)
 *   idf(t) = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))
 *
 * len(d,f) counts the terms of field f, avglen_f averages it over all N tools (empty fields
 * included) and df(t) counts the tools with t in any field. Repeated query terms count once.
 *
 * Storage: one posting list per (term, field), valued by raw counts, and per-field lengths. The
 * averages move with every upsert, so normalisation happens at query time: upsert and remove stay
 * O(terms of the tool), and nothing is recomputed for the other tools. A query walks, per term,
 * the lists of its fields (summing tf̃ per tool), then saturates each tool's sum once.
 */
export class Bm25Index implements SearchIndex {
  readonly strategy = 'bm25' as const;
  private readonly k1: number;
  /** Per field, in TOOL_FIELDS order: 1 − b_f, b_f and the boost. */
  private readonly fieldBase: Float64Array;
  private readonly fieldB: Float64Array;
  private readonly fieldBoost: Float64Array;
  private readonly exactMatchBoost: boolean;
  private readonly docs = new SlotTable<Doc>();
  private readonly vocabulary: Vocabulary;
  private readonly postings = new Postings((slot) => this.docs.at(slot)!.postings);
  private readonly byExactId = new SlotsByKey();
  private readonly byExactName = new SlotsByKey();
  /** Per field: Σ len(d,f) over the tools indexed. */
  private readonly totalLengths = new Float64Array(FIELD_COUNT);
  /** Per field, slot-indexed: len(d,f). */
  private readonly fieldLengths: Float64Array[] = TOOL_FIELDS.map(() => new Float64Array(64));
  /** Term-indexed: df(t). */
  private docFreq = new Int32Array(256);
  // Slot-indexed, all zeros between queries: the score, and tf̃ of the term being scored.
  private scores = new Float64Array(64);
  private combined = new Float64Array(64);
  private termTouched = new Int32Array(64);
  // Term-indexed, all zeros between upserts: counts in the field being indexed; marks of seen terms.
  private counts = new Int32Array(256);
  private seen = new Int32Array(256);

  constructor(options: Bm25IndexOptions = {}) {
    const { k1, b, boosts } = resolveBm25Options(options);
    this.k1 = k1;
    this.fieldB = Float64Array.from(TOOL_FIELDS, (field) => b[field]);
    this.fieldBase = Float64Array.from(TOOL_FIELDS, (field) => 1 - b[field]);
    this.fieldBoost = Float64Array.from(TOOL_FIELDS, (field) => boosts[field]);
    this.exactMatchBoost = options.exactMatchBoost ?? true;
    this.vocabulary = new Vocabulary(options.normalizeWord);
  }

  get size(): number {
    return this.docs.size;
  }

  upsert(tool: Tool, extra: SearchExtras = {}): void {
    this.remove(tool.id);
    const fields = toolFields(tool, extra.learned ? { learned: extra.learned } : {});
    const keys: number[] = [];
    const values: number[] = [];
    const terms: number[] = [];
    const lengths = new Float64Array(FIELD_COUNT);
    const fieldTerms: number[] = [];
    for (let f = 0; f < FIELD_COUNT; f++) {
      if (this.fieldBoost[f] === 0) continue;
      let length = 0;
      this.vocabulary.forEachTerm(fields[TOOL_FIELDS[f]!], (term) => {
        if (term >= this.counts.length) this.growTermArrays(term + 1);
        if (this.counts[term] === 0) fieldTerms.push(term);
        this.counts[term]! += 1;
        length += 1;
      });
      for (const term of fieldTerms) {
        keys.push(term * FIELD_COUNT + f);
        values.push(this.counts[term]!);
        this.counts[term] = 0;
        if (this.seen[term] === 0) {
          this.seen[term] = 1;
          terms.push(term);
        }
      }
      fieldTerms.length = 0;
      lengths[f] = length;
    }
    for (const term of terms) {
      this.seen[term] = 0;
      this.docFreq[term]! += 1;
    }
    const slot = this.docs.add(tool.id, (slot) => ({
      id: tool.id,
      tool,
      postings: this.postings.addDocument(slot, keys, values),
      terms,
    }));
    const capacity = this.docs.capacity;
    this.scores = ensureLength(this.scores, capacity, (n) => new Float64Array(n));
    this.combined = ensureLength(this.combined, capacity, (n) => new Float64Array(n));
    this.termTouched = growInt32(this.termTouched, capacity);
    for (let f = 0; f < FIELD_COUNT; f++) {
      const fieldLengths = ensureLength(this.fieldLengths[f]!, capacity, (n) => new Float64Array(n));
      this.fieldLengths[f] = fieldLengths;
      fieldLengths[slot] = lengths[f]!;
      this.totalLengths[f]! += lengths[f]!;
    }
    this.byExactId.add(tool.id.toLowerCase(), slot);
    this.byExactName.add(tool.name.toLowerCase(), slot);
  }

  remove(id: string): void {
    const removed = this.docs.remove(id);
    if (!removed) return;
    const { slot, item: doc } = removed;
    this.postings.removeDocument(doc.postings);
    for (const term of doc.terms) this.docFreq[term]! -= 1;
    for (let f = 0; f < FIELD_COUNT; f++) {
      const fieldLengths = this.fieldLengths[f]!;
      this.totalLengths[f]! -= fieldLengths[slot]!;
      fieldLengths[slot] = 0;
    }
    this.byExactId.delete(doc.id.toLowerCase(), slot);
    this.byExactName.delete(doc.tool.name.toLowerCase(), slot);
  }

  search(query: string, options: SearchOptions): SearchHit[] {
    const limit = Math.floor(options.limit);
    const n = this.docs.size;
    if (!(limit > 0) || n === 0) return [];
    const { scores, combined, termTouched, k1 } = this;
    const k1Plus1 = k1 + 1;
    const touched: number[] = [];
    const { terms, weights } = this.queryTerms(query, options.added);
    for (let q = 0; q < terms.length; q++) {
      const term = terms[q]!;
      const df = this.docFreq[term] ?? 0;
      if (df === 0) continue;
      let touchedCount = 0;
      for (let f = 0; f < FIELD_COUNT; f++) {
        const list = this.postings.get(term * FIELD_COUNT + f);
        if (!list) continue;
        const { slots, values } = list;
        // boost · tf / (1 − b + b·len/avglen) as boost · tf / (base + perUnit·len).
        const boost = this.fieldBoost[f]!;
        const base = this.fieldBase[f]!;
        const perUnit = (this.fieldB[f]! * n) / this.totalLengths[f]!; // a posting means total > 0
        const lengths = this.fieldLengths[f]!;
        for (let i = 0; i < slots.length; i++) {
          const slot = slots[i]!;
          const before = combined[slot]!;
          // Every addition is > 0 (boost > 0, tf ≥ 1), so 0 marks a slot this term has not touched.
          if (before === 0) termTouched[touchedCount++] = slot;
          combined[slot] = before + (boost * values[i]!) / (base + perUnit * lengths[slot]!);
        }
      }
      // Saturate each tool's tf̃ once, after all its fields are in.
      const idf = weights[q]! * Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (let i = 0; i < touchedCount; i++) {
        const slot = termTouched[i]!;
        const tf = combined[slot]!;
        combined[slot] = 0;
        const before = scores[slot]!;
        if (before === 0) touched.push(slot);
        scores[slot] = before + (idf * tf * k1Plus1) / (tf + k1);
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
   * Why `id` scores what it does for `query`: each query term's share of the score, split over the
   * fields it matched in (a term's saturated score divided in proportion to each field's part of
   * its tf̃), and the sum per field. The parts add up to the plain BM25F score; an exact id or name
   * match, lifted above the rest by `search`, is reported beside it. Undefined for an unknown id.
   * For a page of results only: it walks the tool's own postings.
   */
  explain(query: string, id: string, added?: WeightedText): Bm25Explanation | undefined {
    const slot = this.docs.slotOf(id);
    if (slot === undefined) return undefined;
    const doc = this.docs.at(slot)!;
    const n = this.docs.size;
    // The tool's count of each (term, field) key, from its own postings.
    const counts = new Map<number, number>();
    doc.postings.terms.forEach((key, i) => {
      counts.set(key, this.postings.get(key)!.values[doc.postings.positions[i]!]!);
    });
    const terms: Record<string, Partial<Record<Bm25Field, number>>> = {};
    const fields: Partial<Record<Bm25Field, number>> = {};
    let score = 0;
    const { terms: queryTerms, weights } = this.queryTerms(query, added);
    for (let q = 0; q < queryTerms.length; q++) {
      const term = queryTerms[q]!;
      const parts: [Bm25Field, number][] = [];
      let tf = 0;
      for (let f = 0; f < FIELD_COUNT; f++) {
        const count = counts.get(term * FIELD_COUNT + f);
        if (count === undefined) continue;
        const perUnit = (this.fieldB[f]! * n) / this.totalLengths[f]!;
        const part =
          (this.fieldBoost[f]! * count) / (this.fieldBase[f]! + perUnit * this.fieldLengths[f]![slot]!);
        parts.push([TOOL_FIELDS[f]!, part]);
        tf += part;
      }
      if (tf === 0) continue;
      const df = this.docFreq[term]!;
      const termScore =
        (weights[q]! * Math.log(1 + (n - df + 0.5) / (df + 0.5)) * tf * (this.k1 + 1)) / (tf + this.k1);
      const byField: Partial<Record<Bm25Field, number>> = {};
      for (const [field, part] of parts) {
        const share = (termScore * part) / tf;
        byField[field] = share;
        fields[field] = (fields[field] ?? 0) + share;
      }
      terms[this.vocabulary.termOf(term) ?? String(term)] = byField;
      score += termScore;
    }
    const key = query.trim().toLowerCase();
    const exact =
      !this.exactMatchBoost || key === ''
        ? undefined
        : this.byExactId.get(key)?.has(slot)
          ? 'id'
          : this.byExactName.get(key)?.has(slot)
            ? 'name'
            : undefined;
    return { score, fields, terms, ...(exact ? { exactMatch: exact } : {}) };
  }

  /** Whether some indexed tool has the term of this word (`maps` when tools say `map`). */
  knows(word: string): boolean {
    for (const term of this.vocabulary.lookup(word)) if ((this.docFreq[term] ?? 0) > 0) return true;
    return false;
  }

  /** The query's term ids at weight 1, then the added text's other terms at its weight. */
  private queryTerms(query: string, added: WeightedText | undefined): { terms: number[]; weights: number[] } {
    const terms = this.vocabulary.lookup(query);
    const weights = terms.map(() => 1);
    if (added && added.weight > 0) {
      const own = new Set(terms);
      for (const term of this.vocabulary.lookup(added.text)) {
        if (own.has(term)) continue;
        terms.push(term);
        weights.push(added.weight);
      }
    }
    return { terms, weights };
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

  private growTermArrays(length: number): void {
    this.counts = growInt32(this.counts, length);
    this.seen = growInt32(this.seen, length);
    this.docFreq = growInt32(this.docFreq, length);
  }
}

function growInt32(array: Int32Array<ArrayBuffer>, length: number): Int32Array<ArrayBuffer> {
  if (array.length >= length) return array;
  const grown = new Int32Array(Math.max(length, array.length * 2));
  grown.set(array);
  return grown;
}
