import type { Tool } from '../foundation/model/tool.js';
import { normalizeWord, splitWords, tokenize } from './tokenizer.js';
import type { VerbLexicon } from './verb-lexicon.js';

/** Longest acronym looked for (letters). */
const MAX_ACRONYM = 4;
/** Shortest word a numeronym (`k8s`) can stand for: first letter, at least 3 between, last letter. */
const MIN_NUMERONYM_WORD = 5;
const LETTERS = /^[a-z]+$/;
const NUMERONYM = /^([a-z])(\d{1,2})([a-z])$/;
/**
 * An acronym is read only as people write one, in capitals (`PR`, `PRs`, `API`): in lowercase,
 * two or three letters are far more often a word or a fragment ("ll" of "we'll", "re", "fan").
 */
const ACRONYM_WRITTEN = /^[A-Z]{2,}s?$/;
/** Tools whose names must share a reading before an acronym is taken for it: one name is chance. */
const MIN_ACRONYM_TOOLS = 2;

/** Options of {@link QueryExpander}. */
export interface QueryExpanderOptions {
  /** Read acronyms and numeronyms. Default true. */
  abbreviations?: boolean;
  /**
   * A verb lexicon (WordNet's, `verb-lexicon.ts`): a query verb that no tool name uses gets the
   * related verbs that tool names do use ("get rid of" → remove when names say `remove_branch`).
   */
  verbs?: VerbLexicon | undefined;
}

/** Per expanded query word, the words added for it (index terms: lowercased, stemmed). */
export type QueryExpansions = Record<string, string[]>;

/**
 * Abbreviations learned from the catalog itself, not from a list: how its tools write their
 * identifiers. A query word the catalog never uses is looked up as
 *
 * - an **acronym**, written in capitals, of a run of words that at least two of the catalog's tool
 *   and parameter names write together: `PR`/`PRs` → pull request when names say
 *   `create_pull_request`, `list_pull_requests`;
 * - a **numeronym** of a catalog word: `k8s` → kubernetes, `i18n` → internationalization (first
 *   letter, the count of letters between, last letter);
 *
 * and the other way round, a query word whose numeronym the catalog uses (`kubernetes` when tools
 * say `k8s`) gets it added. The most frequent reading wins. Only words the catalog never uses are
 * expanded: a word it uses matches as it is ("statistics" is not taken for some API's `s8s`).
 * Kept in sync one tool at a time.
 */
export class QueryExpander {
  /** Index terms of the catalog's tool names, with counts. */
  private readonly nameTerms = new Map<string, number>();
  /**
   * The first term of each tool name, with counts: where names put their verb (`delete_branch`,
   * `getWeather`), the only place a synonym is taken from.
   */
  private readonly nameVerbs = new Map<string, number>();
  /** Words of the catalog's text (names, namespaces, titles, descriptions, parameter names), with counts. */
  private readonly words = new Map<string, number>();
  /** Acronym → the word runs of names it abbreviates, with counts. */
  private readonly acronyms = new Map<string, Map<string, number>>();
  /** Numeronym → the catalog words it abbreviates, with counts. */
  private readonly numeronyms = new Map<string, Map<string, number>>();
  private readonly contributions = new Map<string, Contribution>();
  /**
   * A word of the catalog's names for each index term, so that expansions add words rather than
   * stems (Porter2 is not idempotent: a stem read again may lose more letters).
   */
  private readonly surface = new Map<string, string>();

  private readonly abbreviations: boolean;
  private readonly verbs: VerbLexicon | undefined;

  constructor(options: QueryExpanderOptions = {}) {
    this.abbreviations = options.abbreviations ?? true;
    this.verbs = options.verbs;
  }

  /** Adds or replaces a tool's identifiers and words. */
  upsert(tool: Tool): void {
    this.remove(tool.id);
    const contribution = contributionOf(tool);
    this.contributions.set(tool.id, contribution);
    this.apply(contribution, 1);
  }

  /** Removes a tool; unknown ids are ignored. */
  remove(id: string): void {
    const contribution = this.contributions.get(id);
    if (!contribution) return;
    this.contributions.delete(id);
    this.apply(contribution, -1);
  }

  /**
   * The words to add to `query`, per query word that has a reading in the catalog (lowercased);
   * empty when none does.
   */
  expand(query: string): QueryExpansions {
    const expansions: QueryExpansions = {};
    // Words as written, not split by case: the tokenizer reads `PRs` as p + rs.
    const writtenWords = this.abbreviations ? (query.match(/[A-Za-z0-9]+/g) ?? []) : [];
    for (const written of new Set(writtenWords)) {
      const word = written.toLowerCase();
      // Stop words stay out: "it" or "do" should not turn into some name's initials.
      if (expansions[word] || normalizeWord(word) === undefined) continue;
      if (this.words.has(word)) continue;
      const reading = this.reading(word, ACRONYM_WRITTEN.test(written));
      if (reading) {
        expansions[word] = reading.split(' ').map((term) => this.surface.get(term) ?? term);
      } else if (word.length >= MIN_NUMERONYM_WORD && LETTERS.test(word)) {
        // The long form in the query, the short one in the catalog.
        const short = numeronym(word);
        if (this.words.has(short)) expansions[word] = [short];
      }
    }
    if (this.verbs) this.expandVerbs(query, expansions);
    return expansions;
  }

  /** Verb synonyms, restricted to verbs that tool names use; phrases ("get rid of") first. */
  private expandVerbs(query: string, expansions: QueryExpansions): void {
    const terms = [...new Set(tokenize(query))];
    const present = new Set(terms);
    for (let n = Math.min(3, terms.length); n >= 1; n--) {
      for (let i = 0; i + n <= terms.length; i++) {
        const key = terms.slice(i, i + n).join(' ');
        // A verb that names use matches as it is.
        if (n === 1 && this.nameTerms.has(key)) continue;
        const related = this.verbs!.relatedTo(key).filter(
          (verb) => this.nameVerbs.has(verb) && !present.has(verb),
        );
        if (related.length === 0) continue;
        expansions[key] = related.map((term) => this.surface.get(term) ?? term);
        for (const verb of related) present.add(verb);
      }
    }
  }

  /** What an unknown query word abbreviates in this catalog, if anything. */
  private reading(word: string, capitals: boolean): string | undefined {
    if (NUMERONYM.test(word)) return best(this.numeronyms.get(word), 1);
    if (!capitals) return undefined;
    return (
      best(this.acronyms.get(word), MIN_ACRONYM_TOOLS) ??
      (word.endsWith('s') ? best(this.acronyms.get(word.slice(0, -1)), MIN_ACRONYM_TOOLS) : undefined)
    );
  }

  private apply(contribution: Contribution, sign: 1 | -1): void {
    for (const term of contribution.nameTerms) count(this.nameTerms, term, sign);
    if (contribution.nameVerb !== undefined) count(this.nameVerbs, contribution.nameVerb, sign);
    // Kept when tools go: a stale spelling of a term is still a spelling of it.
    for (const [term, word] of contribution.spellings)
      if (!this.surface.has(term)) this.surface.set(term, word);
    for (const word of contribution.words) count(this.words, word, sign);
    for (const [acronym, phrase] of contribution.acronyms) countIn(this.acronyms, acronym, phrase, sign);
    for (const word of contribution.words) {
      if (word.length >= MIN_NUMERONYM_WORD && LETTERS.test(word))
        countIn(this.numeronyms, numeronym(word), word, sign);
    }
  }
}

interface Contribution {
  /** Distinct index terms of the tool's name. */
  nameTerms: string[];
  /** The first of them. */
  nameVerb: string | undefined;
  /** Index term → a word of the tool's names it comes from. */
  spellings: [string, string][];
  /** Distinct words of the tool's text. */
  words: string[];
  /** Distinct (acronym, phrase) pairs of its names. */
  acronyms: [string, string][];
}

function contributionOf(tool: Tool): Contribution {
  const properties = tool.inputSchema.properties;
  const paramNames = properties && typeof properties === 'object' ? Object.keys(properties) : [];
  // Namespaces give no acronyms: every tool of a server repeats its name, which would count one
  // server's name as many tools' agreement.
  const identifiers = [tool.name, ...paramNames];
  const words = new Set<string>();
  for (const text of [...identifiers, tool.namespace, tool.title ?? '', tool.description]) {
    for (const word of splitWords(text)) words.add(word);
  }
  const acronyms = new Map<string, string>();
  for (const identifier of identifiers) {
    // Function words never start an abbreviated run ("by", "of" in "Nutrition by API").
    const parts = splitWords(identifier).filter(
      (part) => LETTERS.test(part) && normalizeWord(part) !== undefined,
    );
    // Every run of 2 to MAX_ACRONYM words: `create_pull_request` gives cp, cpr, pr.
    for (let start = 0; start < parts.length; start++) {
      for (let end = start + 2; end <= Math.min(parts.length, start + MAX_ACRONYM); end++) {
        // Stemmed, so `pull_request` and `pull_requests` agree on one reading.
        const run = parts.slice(start, end);
        const phrase = run.map((part) => normalizeWord(part)!).join(' ');
        acronyms.set(`${run.map((part) => part[0]).join('')}|${phrase}`, phrase);
      }
    }
  }
  const spellings = new Map<string, string>();
  for (const identifier of identifiers) {
    for (const word of splitWords(identifier)) {
      const term = normalizeWord(word);
      if (term !== undefined && !spellings.has(term)) spellings.set(term, word);
    }
  }
  const nameTerms = tokenize(tool.name);
  return {
    nameTerms: [...new Set(nameTerms)],
    nameVerb: nameTerms[0],
    spellings: [...spellings],
    words: [...words],
    acronyms: [...acronyms].map(([key, phrase]) => [key.slice(0, key.indexOf('|')), phrase]),
  };
}

function numeronym(word: string): string {
  return `${word[0]}${word.length - 2}${word.at(-1)}`;
}

function count(map: Map<string, number>, key: string, by: number): void {
  const next = (map.get(key) ?? 0) + by;
  if (next > 0) map.set(key, next);
  else map.delete(key);
}

function countIn(map: Map<string, Map<string, number>>, key: string, value: string, by: number): void {
  let inner = map.get(key);
  if (!inner) {
    inner = new Map();
    map.set(key, inner);
  }
  count(inner, value, by);
  if (inner.size === 0) map.delete(key);
}

/** The most frequent reading; ties go to the first in code-unit order, so the answer is stable. */
function best(readings: Map<string, number> | undefined, atLeast: number): string | undefined {
  let chosen: string | undefined;
  let most = atLeast - 1;
  for (const [reading, n] of readings ?? []) {
    if (n > most || (n === most && chosen !== undefined && reading < chosen)) {
      chosen = reading;
      most = n;
    }
  }
  return chosen;
}
