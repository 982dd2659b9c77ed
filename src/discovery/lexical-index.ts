import type { Tool } from '../foundation/tool.js';
import type { SearchHit, SearchIndex, SearchOptions } from './search-index.js';
import { tokenize } from './tokenizer.js';
import { TOOL_FIELDS, toolFields } from './tool-fields.js';
import { TopK } from './top-k.js';

interface Doc {
  id: string;
  tool: Tool;
  nameTerms: Set<string>;
  allTerms: Set<string>;
  /** Lowercase id and name with everything but letters and digits removed, for substring matches. */
  compactId: string;
  compactName: string;
  lowerId: string;
  lowerName: string;
}

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
  private readonly docs = new Map<string, Doc>();
  private readonly postings = new Map<string, Set<Doc>>();

  get size(): number {
    return this.docs.size;
  }

  upsert(tool: Tool): void {
    this.remove(tool.id);
    const fields = toolFields(tool);
    const allTerms = new Set<string>();
    for (const field of TOOL_FIELDS) for (const term of tokenize(fields[field])) allTerms.add(term);
    const doc: Doc = {
      id: tool.id,
      tool,
      nameTerms: new Set(tokenize(tool.name)),
      allTerms,
      compactId: compact(tool.id),
      compactName: compact(tool.name),
      lowerId: tool.id.toLowerCase(),
      lowerName: tool.name.toLowerCase(),
    };
    this.docs.set(tool.id, doc);
    for (const term of allTerms) {
      let set = this.postings.get(term);
      if (!set) {
        set = new Set();
        this.postings.set(term, set);
      }
      set.add(doc);
    }
  }

  remove(id: string): void {
    const doc = this.docs.get(id);
    if (!doc) return;
    for (const term of doc.allTerms) {
      const set = this.postings.get(term);
      set?.delete(doc);
      if (set?.size === 0) this.postings.delete(term);
    }
    this.docs.delete(id);
  }

  search(query: string, options: SearchOptions): SearchHit[] {
    const limit = Math.floor(options.limit);
    if (!(limit > 0) || this.docs.size === 0) return [];
    const terms = [...new Set(tokenize(query))];
    const whole = query.trim().toLowerCase();
    const compactQuery = compact(query);
    const candidates = new Set<Doc>();
    for (const term of terms) for (const doc of this.postings.get(term) ?? []) candidates.add(doc);
    // A name can contain the query without sharing a token ("git" in "github"), so look at all.
    if (compactQuery.length >= 2) {
      for (const doc of this.docs.values()) {
        if (doc.compactName.includes(compactQuery) || doc.compactId.includes(compactQuery))
          candidates.add(doc);
      }
    }

    const top = new TopK(limit);
    for (const doc of candidates) {
      let overlap = 0;
      for (const term of terms) overlap += doc.nameTerms.has(term) ? 2 : doc.allTerms.has(term) ? 1 : 0;
      let score = terms.length > 0 ? overlap / (2 * terms.length) : 0;
      if (
        compactQuery.length >= 2 &&
        (doc.compactName.includes(compactQuery) || doc.compactId.includes(compactQuery))
      ) {
        score += 0.5;
      }
      if (whole !== '' && (doc.lowerName === whole || doc.lowerId === whole)) score += 1;
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
