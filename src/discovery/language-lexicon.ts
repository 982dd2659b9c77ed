import de from './lexicon/de.json' with { type: 'json' };
import en from './lexicon/en.json' with { type: 'json' };
import es from './lexicon/es.json' with { type: 'json' };
import fr from './lexicon/fr.json' with { type: 'json' };
import it from './lexicon/it.json' with { type: 'json' };
import ja from './lexicon/ja.json' with { type: 'json' };
import ko from './lexicon/ko.json' with { type: 'json' };
import nl from './lexicon/nl.json' with { type: 'json' };
import pt from './lexicon/pt.json' with { type: 'json' };
import ru from './lexicon/ru.json' with { type: 'json' };
import zh from './lexicon/zh.json' with { type: 'json' };
import { LEXICON_LANGUAGES, type LexiconLanguage } from './search-defaults.js';
import { forEachWord, normalizeWord, STOP_WORDS } from './tokenizer.js';

export { LEXICON_LANGUAGES, type LexiconLanguage } from './search-defaults.js';

/** One query word read through a language entry of the lexicon; shown by `explain`. */
export interface LanguageExpansion {
  /** The query's word or phrase as matched (lowercased, accents removed for Latin scripts). */
  word: string;
  language: LexiconLanguage;
  /** The concept of `lexicon/en.json` it is an entry of (`create`, `comment`, …). */
  entry: string;
  kind: 'action' | 'object';
  /** The English words added to the query for it. */
  adds: string[];
}

/** One language file of `lexicon/` (see its `about`). */
interface LanguageFile {
  language: string;
  suffixes: string[];
  stopWords: string[];
  entries: Record<string, string>;
}

/** An action of `lexicon/en.json`. */
interface EnglishAction {
  en: string[];
  family: string[];
  also?: string[];
}

interface Entry {
  concept: string;
  kind: 'action' | 'object';
}

/** A language's forms, ready for lookups. */
interface LanguageTable {
  language: LexiconLanguage;
  cjk: boolean;
  suffixes: string[];
  /** Single-word forms (normalised) and their stripped stems → entries. */
  words: Map<string, Entry[]>;
  stems: Map<string, Entry[]>;
  /** Forms of several words (normalised, space-joined) → entries. */
  phrases: Map<string, Entry[]>;
  /** CJK forms → entries, matched through the bigram segmentation. */
  cjkForms: [string[], Entry[]][];
  stopWords: Set<string>;
}

/** A stem shorter than this is not stripped further: short stems collide across words. */
const MIN_STEM = 3;
/** Shortest query word read through suffix stripping. */
const MIN_STEMMED_WORD = 5;
/** Words of a Latin-script language a query must show before its other words are read in it. */
const MIN_EVIDENCE = 2;
/** Longest phrase form, in words. */
const MAX_PHRASE = 4;
const FILES: Record<LexiconLanguage, LanguageFile> = { es, fr, de, pt, it, nl, zh, ja, ko, ru };
const CJK_LANGUAGES: ReadonlySet<string> = new Set(['zh', 'ja', 'ko']);

/**
 * The multilingual action and object lexicon (`src/discovery/lexicon/*.json`): the words tools are
 * named after — a few dozen actions (create, add, get, list, search, delete, send, …) and objects
 * (issue, comment, file, message, …) — in ten languages, each mapped to its English words. Tool
 * names are English; a query in Spanish asking to "añadir un comentario" shares no word with
 * `add_issue_comment`, and its product name alone then finds the server but not the action.
 *
 * Matching: Latin and Cyrillic words are lowercased and stripped of accents, then looked up as
 * listed forms, as phrases of listed forms (`base de datos`), or — for other inflections — by
 * stripping the language's longest listed suffix from both the query word and the forms
 * (`comentarios` → comentari, `erstellt` → erstell). Chinese, Japanese and Korean, written without
 * spaces, are matched through the tokenizer's segmentation: a form matches when all its character
 * bigrams occur in one run of the query (a one-character form, when the run contains it).
 *
 * The lexicon also knows the English action words and their families (create and add are one),
 * which the verb stage of search compares between a query and a tool name (`hit-reranking.ts`).
 */
export class LanguageLexicon {
  private readonly tables: LanguageTable[];
  /** English index terms of the action words → their families. */
  private readonly families = new Map<string, string[]>();
  /** Concept → the English words it adds. */
  private readonly english = new Map<string, string[]>();
  /** The index terms of every English word of the lexicon (`videos` → video): never read as foreign words. */
  private readonly englishTerms = new Set<string>();

  /** @param languages the languages read (default all ten); an empty list reads none. */
  constructor(languages: readonly LexiconLanguage[] = LEXICON_LANGUAGES) {
    for (const [concept, action] of Object.entries(en.actions) as [string, EnglishAction][]) {
      this.english.set(concept, action.en);
      for (const word of [concept, ...action.en, ...(action.also ?? [])]) {
        const term = normalizeWord(word);
        if (term === undefined) continue;
        const known = this.families.get(term) ?? [];
        this.families.set(term, [...new Set([...known, ...action.family])]);
      }
    }
    for (const [concept, words] of Object.entries(en.objects)) this.english.set(concept, words);
    const english = (word: string) => {
      const term = normalizeWord(word);
      if (term !== undefined) this.englishTerms.add(term);
    };
    for (const action of Object.values(en.actions) as EnglishAction[]) {
      for (const word of [...action.en, ...(action.also ?? [])]) english(word);
    }
    for (const [concept, words] of this.english) for (const word of [concept, ...words]) english(word);
    this.tables = [...new Set(languages)].map((language) => buildTable(language, FILES[language]));
  }

  /** The languages read. */
  get languages(): LexiconLanguage[] {
    return this.tables.map((table) => table.language);
  }

  /**
   * The query's words that are entries of the lexicon, each with the English words it adds. A
   * word for which `known` is true (one the catalog itself uses) is left as it is: it matches
   * already, and an English word that happens to be a foreign form ("map", Dutch for folder)
   * must not drift. An entry adds nothing twice.
   */
  expand(query: string, known: (word: string) => boolean = () => false): LanguageExpansion[] {
    if (this.tables.length === 0) return [];
    const words: string[] = [];
    const runs: string[][] = [];
    let run: string[] | undefined;
    // French elisions (l'issue, d'écran) are two words, not one glued word.
    forEachWord(query.replace(/['\u2019]/g, ' '), (word) => {
      if (isCjkWord(word)) {
        // Bigrams of one run arrive in order; a Latin word or a space between ends the run.
        if (!run) {
          run = [];
          runs.push(run);
        }
        run.push(word);
        words.push('');
        return;
      }
      run = undefined;
      words.push(fold(word));
    });
    const found: LanguageExpansion[] = [];
    const seen = new Set<string>();
    const add = (word: string, language: LexiconLanguage, entries: Entry[]) => {
      for (const { concept, kind } of entries) {
        const key = `${language}|${concept}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const adds = this.english.get(concept) ?? [concept];
        found.push({ word, language, entry: concept, kind, adds });
      }
    };
    // Per query, not per language: which words may be foreign at all, and the phrases of 2–4 words.
    const readable = words.map(
      (word) =>
        word !== '' &&
        !this.englishTerms.has(normalizeWord(word) ?? '') &&
        !STOP_WORDS.has(word) &&
        !known(word),
    );
    const phrases: { at: number; length: number; text: string }[] = [];
    for (let n = Math.min(MAX_PHRASE, words.length); n >= 2; n--) {
      for (let i = 0; i + n <= words.length; i++) {
        const phrase = words.slice(i, i + n);
        if (!phrase.includes('')) phrases.push({ at: i, length: n, text: phrase.join(' ') });
      }
    }
    for (const table of this.tables) {
      if (table.cjk) {
        for (const [bigrams, entries] of table.cjkForms) {
          const form = bigrams.join('');
          for (const r of runs)
            if (containsAll(r, bigrams)) add(formText(bigrams, form), table.language, entries);
        }
        continue;
      }
      // Latin-script languages share letters with English: read one only when the query shows it —
      // at least two of its words are its listed forms or its function words ("añadir un
      // comentario", "la base de datos"), English ones and the catalog's own words not counted.
      // Otherwise "and" would be German (ändern) and Italian (andare) in every English request.
      // Cyrillic and CJK forms cannot be English words; they need no such evidence.
      const latin = table.language !== 'ru';
      const matches: [string, Entry[]][] = [];
      let evidence = 0;
      const used = new Set<number>();
      // Phrases first (longest first): "base de datos" is a database, not a base and data.
      for (const { at, length, text } of phrases) {
        const entries = table.phrases.get(text);
        if (!entries) continue;
        let free = true;
        for (let j = at; j < at + length; j++) if (used.has(j)) free = false;
        if (!free) continue;
        matches.push([text, entries]);
        evidence += 2;
        for (let j = at; j < at + length; j++) used.add(j);
      }
      words.forEach((word, i) => {
        if (!readable[i] || used.has(i)) return;
        if (table.stopWords.has(word)) {
          evidence += 1;
          return;
        }
        const exact = table.words.get(word);
        // Stems only for words long enough to carry an ending: short words must be listed forms.
        const entries =
          exact ??
          (word.length >= MIN_STEMMED_WORD ? table.stems.get(stripSuffix(word, table.suffixes)) : undefined);
        if (!entries) return;
        if (exact) evidence += 1;
        matches.push([word, entries]);
      });
      if (latin && evidence < MIN_EVIDENCE) continue;
      for (const [word, entries] of matches) add(word, table.language, entries);
    }
    return found;
  }

  /**
   * The families of an English action word given as an index term (`delet` and `drop` → delete;
   * `show` → get and list); empty when it is not an action word.
   */
  familiesOf(term: string): readonly string[] {
    return this.families.get(term) ?? [];
  }

  /** Whether `word` (lowercased) is a stop word of a language read, in a query that used it. */
  isStopWord(word: string, language: LexiconLanguage): boolean {
    return this.tables.find((table) => table.language === language)?.stopWords.has(fold(word)) ?? false;
  }
}

function buildTable(language: LexiconLanguage, file: LanguageFile): LanguageTable {
  const cjk = CJK_LANGUAGES.has(language);
  const suffixes = [...file.suffixes].map(fold).sort((a, b) => b.length - a.length);
  const table: LanguageTable = {
    language,
    cjk,
    suffixes,
    words: new Map(),
    stems: new Map(),
    phrases: new Map(),
    cjkForms: [],
    stopWords: new Set(file.stopWords.map(fold)),
  };
  const actions = new Set(Object.keys(en.actions));
  const cjkForms = new Map<string, Entry[]>();
  for (const [concept, forms] of Object.entries(file.entries)) {
    const entry: Entry = { concept, kind: actions.has(concept) ? 'action' : 'object' };
    for (const form of forms.split('|')) {
      if (cjk) {
        push(cjkForms, form.replace(/\s+/g, ''), entry);
        continue;
      }
      const parts = form
        .split(/[\s-]+/)
        .map(fold)
        .filter(Boolean);
      if (parts.length === 0) continue;
      if (parts.length > 1) {
        push(table.phrases, parts.join(' '), entry);
        continue;
      }
      push(table.words, parts[0]!, entry);
      push(table.stems, stripSuffix(parts[0]!, suffixes), entry);
    }
  }
  for (const [form, entries] of cjkForms) {
    const bigrams: string[] = [];
    forEachWord(form, (word) => {
      bigrams.push(word);
    });
    if (bigrams.length > 0) table.cjkForms.push([bigrams, entries]);
  }
  return table;
}

function push(map: Map<string, Entry[]>, key: string, entry: Entry): void {
  const list = map.get(key);
  if (!list) map.set(key, [entry]);
  else if (!list.some((e) => e.concept === entry.concept)) list.push(entry);
}

/** Lowercase, accents removed (ß → ss, ё → е): queries are typed with and without them. */
function fold(word: string): string {
  return word.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '').replace(/ß/g, 'ss');
}

/** The word without the longest listed suffix that leaves a stem of {@link MIN_STEM} letters. */
function stripSuffix(word: string, suffixes: readonly string[]): string {
  for (const suffix of suffixes) {
    if (word.length - suffix.length >= MIN_STEM && word.endsWith(suffix))
      return word.slice(0, -suffix.length);
  }
  return word;
}

function isCjkWord(word: string): boolean {
  return /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30fc]/u.test(word);
}

/** Whether a run of query bigrams holds every bigram of a form (a lone character: any bigram holding it). */
function containsAll(run: readonly string[], bigrams: readonly string[]): boolean {
  if (bigrams.length === 1 && [...bigrams[0]!].length === 1) {
    return run.some((gram) => gram.includes(bigrams[0]!));
  }
  return bigrams.every((gram) => run.includes(gram));
}

/** A form's text, from its bigrams (`作成` from [作成]; `検索して` from [検索, 索し, して]). */
function formText(bigrams: readonly string[], joined: string): string {
  if (bigrams.length === 1) return joined;
  return (
    bigrams[0]! +
    bigrams
      .slice(1)
      .map((gram) => [...gram].slice(1).join(''))
      .join('')
  );
}
