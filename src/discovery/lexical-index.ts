import type { Tool } from '../foundation/tool.js';
import { Postings } from './postings.js';
import type { SearchHit, SearchIndex, SearchOptions } from './search-index.js';
import { ensureLength, SlotTable } from './slot-table.js';
import { tokenize } from './tokenizer.js';
import { TOOL_FIELDS, toolFields } from './tool-fields.js';
import { TopK } from './top-k.js';

interface Doc {
  id: string;
  tool: Tool;
  /** Distinct terms of all fields. Kept to undo the postings on removal. */
  terms: string[];
  /** Lowercase id and name with everything but letters and digits removed, for substring matches. */
  compactId: string;
  compactName: string;
  lowerId: string;
  lowerName: string;
}

// Per-slot candidate marks during a query.
const TOUCHED = 1;
const SUBSTRING = 2;

/**
 * Token-overlap search: cheap, predictable, no corpus statistics. For the distinct query tokens Q,
 *
 *   score = Σ_{q ∈ Q} w(q) / (2·|Q|)  +  0.5 if the query is a substring of the name or id
 *                                     +  1   if the query equals the name or id
 *
 * where w(q) = 2 when q is in the tool's name, 1 when it is only in another field (namespace,
 * title, description, tags, parameters), else 0. The overlap part lies in [0, 1]. Substring tests
 * ignore case and separators, so "createissue" and "create issue" both find `create_issue`.
 */
export class LexicalIndex implements SearchIndex {
  readonly strategy = 'lexical' as const;
  private readonly docs = new SlotTable<Doc>();
  /** term → slots, each with w(term) for that tool (2 for a name term, else 1). */
  private readonly postings = new Postings();
  private overlap = new Float64Array(64);
  private marks = new Uint8Array(64);

  get size(): number {
    return this.docs.size;
  }

  upsert(tool: Tool): void {
    this.remove(tool.id);
    const fields = toolFields(tool);
    const nameTerms = new Set(tokenize(tool.name));
    const terms = new Set<string>(nameTerms);
    for (const field of TOOL_FIELDS) for (const term of tokenize(fields[field])) terms.add(term);
    const doc: Doc = {
      id: tool.id,
      tool,
      terms: [...terms],
      compactId: compact(tool.id),
      compactName: compact(tool.name),
      lowerId: tool.id.toLowerCase(),
      lowerName: tool.name.toLowerCase(),
    };
    const slot = this.docs.add(tool.id, doc);
    this.overlap = ensureLength(this.overlap, this.docs.capacity, (n) => new Float64Array(n));
    this.marks = ensureLength(this.marks, this.docs.capacity, (n) => new Uint8Array(n));
    for (const term of terms) this.postings.add(term, slot, nameTerms.has(term) ? 2 : 1);
  }

  remove(id: string): void {
    const removed = this.docs.remove(id);
    if (!removed) return;
    for (const term of removed.item.terms) this.postings.remove(term, removed.slot);
  }

  search(query: string, options: SearchOptions): SearchHit[] {
    const limit = Math.floor(options.limit);
    if (!(limit > 0) || this.docs.size === 0) return [];
    const { overlap, marks } = this;
    const terms = new Set(tokenize(query));
    const whole = query.trim().toLowerCase();
    const compactQuery = compact(query);
    const touched: number[] = [];
    for (const term of terms) {
      const list = this.postings.get(term);
      if (!list) continue;
      const { slots, values } = list;
      for (let i = 0; i < slots.length; i++) {
        const slot = slots[i]!;
        if (marks[slot] === 0) {
          marks[slot] = TOUCHED;
          touched.push(slot);
        }
        overlap[slot]! += values[i]!;
      }
    }
    // A name can contain the query without sharing a token ("git" in "github"), so look at all.
    if (compactQuery.length >= 2) {
      for (let slot = 0; slot < this.docs.capacity; slot++) {
        const doc = this.docs.at(slot);
        if (!doc || !(doc.compactName.includes(compactQuery) || doc.compactId.includes(compactQuery)))
          continue;
        if (marks[slot] === 0) touched.push(slot);
        marks[slot]! |= SUBSTRING;
      }
    }

    const top = new TopK(limit);
    for (const slot of touched) {
      const doc = this.docs.at(slot)!;
      let score = terms.size > 0 ? overlap[slot]! / (2 * terms.size) : 0;
      if ((marks[slot]! & SUBSTRING) !== 0) score += 0.5;
      if (whole !== '' && (doc.lowerName === whole || doc.lowerId === whole)) score += 1;
      overlap[slot] = 0;
      marks[slot] = 0;
      if (score > 0 && top.admits(score, doc.id) && (options.filter?.(doc.tool) ?? true)) {
        top.push({ id: doc.id, score });
      }
    }
    return top.sorted();
  }
}

function compact(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}
