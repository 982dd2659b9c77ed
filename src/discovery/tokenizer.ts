/**
 * English words too common to tell tools apart. Deliberately modest: verbs and negations that
 * carry meaning for tools ("get", "list", "create", "delete", "not", "no", "all") are kept.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  'a',
  'an',
  'and',
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
  'in',
  'into',
  'is',
  'it',
  'its',
  'me',
  'my',
  'of',
  'on',
  'or',
  'our',
  'should',
  'so',
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
 * split are dropped as noise. No stop-word removal, no stemming.
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
  let i = 0;
  while (i <= length) {
    const code = i < length ? text.codePointAt(i)! : 0x20;
    const width = code > 0xffff ? 2 : 1;
    const cls = charClass(code);
    let boundary = cls === OTHER;
    if (boundary && (code === 0x27 || code === 0x2019) && start >= 0 && isLetter(prev)) {
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
    if (cls !== OTHER) {
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
const nonAsciiClasses = new Map<number, number>();

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
    cls = /\p{Lu}/u.test(char)
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

/** Words the suffix rules below would get wrong. */
const STEM_EXCEPTIONS: ReadonlyMap<string, string> = new Map([
  ['alias', 'alias'],
  ['ids', 'id'],
  ['embed', 'embed'],
  ['embeds', 'embed'],
  ['news', 'news'],
]);

const VOWEL = /[aeiouy]/;

/**
 * A light suffix stripper, not a linguistic stemmer: plurals, `-ing` and `-ed`, then a final `e`
 * on longer words, so that the forms of one word meet on one key ("issue"/"issues",
 * "create"/"creating"/"created", "list"/"listing", "query"/"queries"). The result is an index key,
 * not always a real word ("issu", "creat"). Words of three letters or fewer, and words containing
 * anything but a–z (digits, other scripts), are returned unchanged. Kept behind this one function
 * so that a full stemmer can replace it.
 */
export function stem(word: string): string {
  const exception = STEM_EXCEPTIONS.get(word);
  if (exception !== undefined) return exception;
  if (word.length <= 3 || !/^[a-z]+$/.test(word)) return word;
  let w = stripPlural(word);
  if (STEM_EXCEPTIONS.has(w)) return STEM_EXCEPTIONS.get(w) ?? w;
  w = stripVerbEnding(w);
  // Dropping a final e makes "create" meet "creat(ing)"; short words keep it ("note" ≠ "not").
  if (w.length >= 5 && w.endsWith('e')) w = w.slice(0, -1);
  // "query"/"queries" → "queri"; a y after a vowel stays ("array", "key", "deploy").
  if (w.length > 3 && w.endsWith('y') && !VOWEL.test(w.charAt(w.length - 2))) w = `${w.slice(0, -1)}i`;
  return w;
}

function stripPlural(w: string): string {
  if (w.endsWith('sses')) return w.slice(0, -2);
  if (w.endsWith('ies') && w.length > 4) return `${w.slice(0, -3)}i`;
  if (/(?:ch|sh|x|zz)es$/.test(w)) return w.slice(0, -2);
  if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) return w.slice(0, -1);
  return w;
}

function stripVerbEnding(w: string): string {
  let base: string;
  if (w.endsWith('ing') && w.length > 4) base = w.slice(0, -3);
  else if (w.endsWith('ed') && !w.endsWith('eed') && w.length > 3) base = w.slice(0, -2);
  else return w;
  // "string", "thing", "shed": without a vowel left it was never a suffix.
  if (!VOWEL.test(base)) return w;
  const last = base.charAt(base.length - 1);
  // "running" → "run", but "adding" keeps "add" and "calling" keeps "call".
  if (base.length >= 4 && last === base.charAt(base.length - 2) && !/[aeiouylsz]/.test(last)) {
    return base.slice(0, -1);
  }
  // Restore the e a short base lost: "using" → "use", "naming" → "name", "filed" → "file".
  if (base.length === 2 && VOWEL.test(base.charAt(0)) && !VOWEL.test(last)) return `${base}e`;
  if (base.length === 3 && isConsonantVowelConsonant(base)) return `${base}e`;
  return base;
}

function isConsonantVowelConsonant(w: string): boolean {
  const [a = '', b = '', c = ''] = w;
  return !VOWEL.test(a) && VOWEL.test(b) && !/[aeiouwxy]/.test(c);
}
