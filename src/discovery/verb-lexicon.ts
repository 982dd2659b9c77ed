import { normalizeWord } from './tokenizer.js';

/**
 * Senses of a verb looked at, most frequent first. On the ToolLens training queries, 3 senses with
 * hypernyms and hyponyms expanded 28,729 query words and lost 1.7 R@5; 1 sense, synonyms only,
 * 6,035 words and 0.3 R@5 (docs/SEARCH.md): rarer senses relate a verb to nearly anything.
 */
const SENSES = 1;

/**
 * Verbs of a general lexical resource (WordNet's `index.verb` and `data.verb`), reduced to what
 * query expansion needs: for a verb — one word or a phrase such as "get rid of", keyed by its
 * index terms (`get rid of` → "get rid"; stop words drop out as in queries) — the synonyms of its
 * most frequent sense ("get rid of" → remove; "erase" → delete). Which of them matter is the
 * catalog's business (`query-expansion.ts` keeps only verbs that tool names start with).
 */
export class VerbLexicon {
  private constructor(private readonly related: ReadonlyMap<string, readonly string[]>) {}

  /**
   * Parses WordNet's verb index and data files (their text). Lines it cannot read (the licence
   * header, blank lines) are skipped.
   */
  static parse(indexVerb: string, dataVerb: string): VerbLexicon {
    const synsets = new Map<string, string[]>();
    for (const line of dataVerb.split('\n')) {
      const fields = line.split(' ');
      // offset lex_filenum ss_type w_cnt(hex) [word lex_id]… p_cnt … (the pointers are not used)
      if (fields.length < 6 || !/^\d{8}$/.test(fields[0]!)) continue;
      const words = Number.parseInt(fields[3]!, 16);
      const lemmas = Array.from({ length: words }, (_, i) => fields[4 + 2 * i]!);
      synsets.set(fields[0]!, lemmas);
    }
    const related = new Map<string, string[]>();
    for (const line of indexVerb.split('\n')) {
      const fields = line.trim().split(' ');
      // lemma pos synset_cnt p_cnt [ptr_symbol]… sense_cnt tagsense_cnt [synset_offset]…
      if (fields.length < 6 || fields[1] !== 'v') continue;
      const key = termKey(fields[0]!);
      if (key === '') continue;
      const senses = Number(fields[2]);
      const offsets = fields.slice(fields.length - senses).slice(0, SENSES);
      const verbs = new Set<string>();
      for (const offset of offsets) {
        for (const lemma of synsets.get(offset) ?? []) verbs.add(lemma);
      }
      const keys = [...verbs].map(termKey).filter((k) => k !== '' && k !== key);
      if (keys.length > 0) related.set(key, [...new Set([...(related.get(key) ?? []), ...keys])]);
    }
    return new VerbLexicon(related);
  }

  /** Number of verbs (lemmas and phrases) with related verbs. */
  get size(): number {
    return this.related.size;
  }

  /** The related verbs of a verb given by its index terms (`termKey`), as index terms; empty when none. */
  relatedTo(key: string): readonly string[] {
    return this.related.get(key) ?? [];
  }
}

/** A WordNet lemma (`get_rid_of`, `Remove`) as the index terms of its words, space-joined. */
export function termKey(lemma: string): string {
  return lemma
    .toLowerCase()
    .split(/[_\s-]+/)
    .map((word) => (/^[a-z]+$/.test(word) ? normalizeWord(word) : undefined))
    .filter((term): term is string => term !== undefined)
    .join(' ');
}
