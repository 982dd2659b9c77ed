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
  const spaced = text
    // Contractions and possessives glue together rather than leave one-letter fragments.
    .replace(/(\p{L})['’](\p{L})/gu, '$1$2')
    // lower/digit → Upper starts a word: createIssue, base64Encode, HTTP2Server.
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    // The last capital of an acronym run starts the next word: HTTPServer → HTTP Server.
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .toLowerCase();
  const words: string[] = [];
  for (const word of spaced.split(/[^\p{L}\p{N}]+/u)) {
    if (word === '') continue;
    words.push(word);
    if (/\p{L}/u.test(word) && /\p{N}/u.test(word)) {
      for (const part of word.split(/(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/u)) {
        if (part.length >= 2) words.push(part);
      }
    }
  }
  return words;
}

/**
 * Turns tool text or a query into index terms: identifier-aware splitting, lowercase, stop words
 * dropped, each word reduced by {@link stem}. Duplicates are kept (they are term frequency).
 */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const word of splitWords(text)) {
    if (STOP_WORDS.has(word)) continue;
    tokens.push(stem(word));
  }
  return tokens;
}

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
