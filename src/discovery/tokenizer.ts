import { stem as porter2 } from 'porter2';

/**
 * Words too common to tell tools apart: English function words, and the filler of requests
 * ("I'm looking for…", "I need…", "please", "also") that describes the asker rather than a tool.
 * Deliberately modest: verbs and negations that carry meaning for tools ("get", "list", "create",
 * "delete", "find", "like", "not", "no", "all") are kept. The filler was chosen on the ToolLens
 * training queries (docs/SEARCH.md).
 */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  'a',
  'about',
  'also',
  'am',
  'an',
  'and',
  'any',
  'anything',
  'are',
  'as',
  'at',
  'be',
  'been',
  'being',
  'by',
  'can',
  'could',
  'does',
  'for',
  'from',
  'has',
  'have',
  'i',
  'if',
  'im',
  'in',
  'interested',
  'into',
  'is',
  'it',
  'its',
  'ive',
  'just',
  'know',
  'looking',
  'me',
  'my',
  'need',
  'needs',
  'of',
  'on',
  'or',
  'our',
  'please',
  'should',
  'so',
  'some',
  'something',
  'such',
  'than',
  'that',
  'the',
  'their',
  'them',
  'these',
  'this',
  'those',
  'to',
  'want',
  'wanted',
  'wants',
  'was',
  'we',
  'were',
  'which',
  'will',
  'with',
  'would',
  'you',
  'your',
]);

/**
 * Splits text into lowercase words, breaking identifiers the way tool names are written:
 * `createIssue`, `HTTPServer` (→ http, server), `create_issue`, `create-issue`, `ns:name`,
 * `a.b/c`. A word mixing letters and digits is kept whole and also split at the digits
 * (`base64` → base64, base, 64) so both spellings of a query meet; one-letter fragments of such a
 * split are dropped as noise. Chinese, Japanese and Korean text, written without spaces, becomes
 * overlapping character bigrams (`搜索结果` → 搜索, 索结, 结果; a lone character stays a unigram),
 * and a run of it ends any Latin word beside it (`使用Bing搜索` → 使用, bing, 搜索).
 * No stop-word removal, no stemming.
 */
export function splitWords(text: string): string[] {
  const words: string[] = [];
  forEachWord(text, (word) => {
    words.push(word);
  });
  return words;
}

/** {@link splitWords} without the array: calls `emit` with each word in order. */
export function forEachWord(text: string, emit: (word: string) => void): void {
  // A hand-written scanner rather than Unicode regexes: indexing 10,000 tools tokenizes
  // megabytes of text, and the regex version was over three times slower.
  const length = text.length;
  let glued = ''; // the part of the current word before an apostrophe
  let start = -1; // where the current word (or its part after an apostrophe) starts; -1 = none
  let prev = OTHER;
  let hasLetter = false;
  let hasDigit = false;
  let cjkStart = -1; // where the current run of CJK characters starts; -1 = none
  let i = 0;
  while (i <= length) {
    const code = i < length ? text.codePointAt(i)! : 0x20;
    const width = code > 0xffff ? 2 : 1;
    const cls = charClass(code);
    if (cls !== CJK && cjkStart >= 0) {
      emitBigrams(text, cjkStart, i, emit);
      cjkStart = -1;
    }
    let boundary = cls === OTHER || cls === CJK;
    if (cls === OTHER && (code === 0x27 || code === 0x2019) && start >= 0 && isLetter(prev)) {
      // Contractions and possessives glue together ("don't" → dont), not leave a one-letter fragment.
      if (isLetter(classAt(text, i + 1))) {
        glued += text.slice(start, i);
        start = i + 1;
        i += 1;
        continue;
      }
    }
    // lower/digit → Upper starts a word (createIssue, HTTP2Server); so does the last capital of an
    // acronym run followed by lowercase (HTTPServer → HTTP Server).
    if (cls === UPPER && start >= 0) {
      boundary = prev === LOWER || prev === DIGIT || (prev === UPPER && classAt(text, i + width) === LOWER);
    }
    if (boundary && start >= 0) {
      emitWord(glued + text.slice(start, i), hasLetter && hasDigit, emit);
      glued = '';
      start = -1;
      hasLetter = false;
      hasDigit = false;
    }
    if (cls === CJK) {
      if (cjkStart < 0) cjkStart = i;
    } else if (cls !== OTHER) {
      if (start < 0) start = i;
      if (cls === DIGIT) hasDigit = true;
      else hasLetter = true;
    }
    prev = cls;
    i += width;
  }
}

const OTHER = 0;
const LOWER = 1; // also caseless letters and combining marks
const UPPER = 2;
const DIGIT = 3;
const CJK = 4; // Han, Hiragana, Katakana, Hangul: scripts written without spaces between words
const nonAsciiClasses = new Map<number, number>();
const CJK_SCRIPTS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30fc]/u;

function charClass(code: number): number {
  if (code < 0x80) {
    if (code >= 0x61 && code <= 0x7a) return LOWER;
    if (code >= 0x41 && code <= 0x5a) return UPPER;
    if (code >= 0x30 && code <= 0x39) return DIGIT;
    return OTHER;
  }
  let cls = nonAsciiClasses.get(code);
  if (cls === undefined) {
    const char = String.fromCodePoint(code);
    cls = CJK_SCRIPTS.test(char)
      ? CJK
      : /\p{Lu}/u.test(char)
        ? UPPER
        : /[\p{L}\p{M}]/u.test(char)
          ? LOWER
          : /\p{N}/u.test(char)
            ? DIGIT
            : OTHER;
    if (nonAsciiClasses.size < 10_000) nonAsciiClasses.set(code, cls);
  }
  return cls;
}

function classAt(text: string, index: number): number {
  return index < text.length ? charClass(text.codePointAt(index)!) : OTHER;
}

function isLetter(cls: number): boolean {
  return cls === LOWER || cls === UPPER;
}

/** Emits the overlapping character bigrams of `text[from, to)`, or its one character. */
function emitBigrams(text: string, from: number, to: number, emit: (word: string) => void): void {
  let first = from;
  let second = first + (text.codePointAt(first)! > 0xffff ? 2 : 1);
  if (second >= to) {
    emit(text.slice(first, to));
    return;
  }
  while (second < to) {
    const end = second + (text.codePointAt(second)! > 0xffff ? 2 : 1);
    emit(text.slice(first, end));
    first = second;
    second = end;
  }
}

function emitWord(raw: string, mixed: boolean, emit: (word: string) => void): void {
  const word = raw.toLowerCase();
  emit(word);
  if (!mixed) return;
  let from = 0;
  for (let i = 1; i <= word.length; i++) {
    if (i < word.length && isDigitCode(word.charCodeAt(i)) === isDigitCode(word.charCodeAt(i - 1))) continue;
    if (i - from >= 2) emit(word.slice(from, i));
    from = i;
  }
}

function isDigitCode(code: number): boolean {
  return charClass(code) === DIGIT;
}

/**
 * Turns tool text or a query into index terms: identifier-aware splitting, lowercase, stop words
 * dropped, each word reduced by {@link stem}. Duplicates are kept (they are term frequency).
 */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  forEachWord(text, (word) => {
    const term = normalizeWord(word);
    if (term !== undefined) tokens.push(term);
  });
  return tokens;
}

/**
 * The index term of one word from {@link splitWords}: undefined for a stop word, else its stem.
 * Stems are memoised: tool text repeats a small vocabulary.
 */
export function normalizeWord(word: string): string | undefined {
  if (STOP_WORDS.has(word)) return undefined;
  let stemmed = stems.get(word);
  if (stemmed === undefined) {
    stemmed = stem(word);
    // The bound only guards against odd inputs (random ids, hashes) growing the memo forever.
    if (stems.size >= 100_000) stems.clear();
    stems.set(word, stemmed);
  }
  return stemmed;
}

const stems = new Map<string, string>();

/**
 * The Porter2 ("English" Snowball) stemmer, from the `porter2` package, for words of plain a–z:
 * the forms of one word meet on one key ("issue"/"issues", "create"/"creating"/"created",
 * "translate"/"translation"/"translator"). The key is not always a word ("issu", "creat").
 * Words of two letters or fewer, and words with anything but a–z in them (digits, accents, other
 * scripts), are returned unchanged: Porter2 is defined for English words only.
 */
export function stem(word: string): string {
  if (word.length <= 2 || !ASCII_WORD.test(word)) return word;
  return STEM_EXCEPTIONS.get(word) ?? porter2(word);
}

/**
 * Tool words whose Porter2 stem misses their family ("adding" → ad but "add" → add, "embeds" →
 * emb, "alias" → alia), mapped to the family's stem. Found by stemming the inflections of common
 * tool verbs.
 */
const STEM_EXCEPTIONS: ReadonlyMap<string, string> = new Map([
  ['added', 'add'],
  ['adding', 'add'],
  ['alias', 'alias'],
  ['embed', 'embed'],
  ['embeds', 'embed'],
]);

const ASCII_WORD = /^[a-z]+$/;
