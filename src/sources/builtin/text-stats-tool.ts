import { defineTool, type ToolDefinition } from '../local/define-tool.js';
import { inputError } from './input-error.js';

interface StatsArgs {
  text: string;
  top?: number;
}

/** Text statistics, as returned by `text:stats`. */
export interface TextStats {
  characters: number;
  charactersNoSpaces: number;
  bytes: number;
  words: number;
  uniqueWords: number;
  sentences: number;
  lines: number;
  paragraphs: number;
  averageWordLength: number;
  readingTimeSeconds: number;
  topWords: { word: string; count: number }[];
}

/** Average adult silent reading speed, words per minute. */
export const READING_WORDS_PER_MINUTE = 230;
const MAX_TOP = 100;
const MAX_TEXT_CHARS = 1_000_000;

// A fixed locale keeps results independent of the host's; ICU segments CJK and Thai by dictionary
// whatever the locale.
// Made on first use: building ICU segmenters costs tens of milliseconds at start-up.
let segmenters: { graphemes: Intl.Segmenter; words: Intl.Segmenter; sentences: Intl.Segmenter } | undefined;
function getSegmenters() {
  segmenters ??= {
    graphemes: new Intl.Segmenter('en', { granularity: 'grapheme' }),
    words: new Intl.Segmenter('en', { granularity: 'word' }),
    sentences: new Intl.Segmenter('en', { granularity: 'sentence' }),
  };
  return segmenters;
}
const HAS_LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const WHITESPACE = /^\s+$/u;

/**
 * Computes the statistics of `text`, with the `top` most frequent words. Counts are Unicode-aware:
 * characters are grapheme clusters (an emoji or an accented letter with combining marks is one),
 * words and sentences follow the Unicode segmentation rules (UAX #29).
 */
export function textStats(text: string, top = 10): TextStats {
  const { graphemes, words: wordSegmenter, sentences: sentenceSegmenter } = getSegmenters();
  let characters = 0;
  let whitespace = 0;
  for (const { segment } of graphemes.segment(text)) {
    characters++;
    if (WHITESPACE.test(segment)) whitespace++;
  }

  const counts = new Map<string, number>();
  let words = 0;
  let wordCharacters = 0;
  for (const { segment, isWordLike } of wordSegmenter.segment(text)) {
    if (!isWordLike) continue;
    words++;
    wordCharacters += [...graphemes.segment(segment)].length;
    if (!HAS_LETTER_OR_DIGIT.test(segment)) continue;
    const word = segment.toLowerCase();
    counts.set(word, (counts.get(word) ?? 0) + 1);
  }

  let sentences = 0;
  for (const { segment } of sentenceSegmenter.segment(text)) {
    if (HAS_LETTER_OR_DIGIT.test(segment)) sentences++;
  }

  const lineList = text === '' ? [] : text.split(/\r\n|\r|\n|\u2028|\u2029/);
  // A final line break ends the last line rather than starting an empty one (as `wc -l` counts).
  if (lineList.length > 1 && lineList[lineList.length - 1] === '') lineList.pop();
  let paragraphs = 0;
  let inParagraph = false;
  for (const line of lineList) {
    const blank = line.trim() === '';
    if (!blank && !inParagraph) paragraphs++;
    inParagraph = !blank;
  }

  const topWords = [...counts]
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, top)
    .map(([word, count]) => ({ word, count }));

  return {
    characters,
    charactersNoSpaces: characters - whitespace,
    bytes: Buffer.byteLength(text, 'utf8'),
    words,
    uniqueWords: counts.size,
    sentences,
    lines: lineList.length,
    paragraphs,
    averageWordLength: words === 0 ? 0 : Math.round((wordCharacters / words) * 100) / 100,
    readingTimeSeconds: Math.ceil((words * 60) / READING_WORDS_PER_MINUTE),
    topWords,
  };
}

const count = (description: string) => ({ type: 'integer', minimum: 0, description });

/** `text:stats`: counts and word frequencies of a text. */
export const textStatsTool: ToolDefinition = defineTool<StatsArgs>({
  namespace: 'text',
  name: 'stats',
  title: 'Text statistics',
  description:
    'Counts characters, words, sentences, lines and paragraphs of a text, with the UTF-8 size, ' +
    'average word length, estimated reading time (230 words per minute) and the most frequent ' +
    'words. Unicode-aware: characters are user-perceived characters (an emoji counts as one), and ' +
    'words follow Unicode word boundaries, so Chinese, Japanese or Thai text is counted in words ' +
    "too. Use it to check length limits, summarise a document's size, or find its key terms " +
    'exactly instead of estimating. Returns the counts and topWords [{ word, count }].',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['text'],
    properties: {
      text: {
        type: 'string',
        maxLength: MAX_TEXT_CHARS,
        description: 'The text to analyse (up to 1,000,000 characters).',
      },
      top: {
        type: 'integer',
        minimum: 0,
        maximum: MAX_TOP,
        default: 10,
        description:
          'How many of the most frequent words to list (0-100, default 10). Words are lower-cased; ' +
          'ties are ordered alphabetically.',
      },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: [
      'characters',
      'charactersNoSpaces',
      'bytes',
      'words',
      'uniqueWords',
      'sentences',
      'lines',
      'paragraphs',
      'averageWordLength',
      'readingTimeSeconds',
      'topWords',
    ],
    properties: {
      characters: count('User-perceived characters (grapheme clusters), whitespace included.'),
      charactersNoSpaces: count('Characters that are not whitespace.'),
      bytes: count('Size in bytes when encoded as UTF-8.'),
      words: count('Words and numbers, by Unicode word boundaries.'),
      uniqueWords: count('Distinct words, case-insensitively.'),
      sentences: count('Sentences, by Unicode sentence boundaries.'),
      lines: count('Lines; a final line break does not start a new line.'),
      paragraphs: count('Blocks of non-blank lines separated by blank lines.'),
      averageWordLength: {
        type: 'number',
        minimum: 0,
        description: 'Mean characters per word, to 2 decimals.',
      },
      readingTimeSeconds: count('Estimated silent reading time at 230 words per minute, rounded up.'),
      topWords: {
        type: 'array',
        description: 'Most frequent words, most frequent first.',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['word', 'count'],
          properties: {
            word: { type: 'string', description: 'The word, lower-cased.' },
            count: { type: 'integer', minimum: 1, description: 'Occurrences in the text.' },
          },
        },
      },
    },
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  tags: ['text', 'statistics', 'word-count', 'reading-time', 'frequency'],
  metadata: { category: 'text', sideEffect: false, cost: 0, latencyHintMs: 5 },
  examples: [
    {
      title: 'Count a short text',
      args: { text: 'The cat sat. The cat slept!\n\nThen it left.' },
      resultHint:
        '{ words: 9, sentences: 3, lines: 3, paragraphs: 2, topWords: [{ word: "cat", count: 2 }, { word: "the", count: 2 }, …] }',
    },
    {
      title: 'Only the three key terms',
      args: { text: 'Rust and Go and Rust: Rust compiles, Go compiles.', top: 3 },
      resultHint: 'topWords: [{ word: "rust", count: 3 }, { word: "and", count: 2 }, …]',
    },
  ],
  handler(args) {
    if (typeof args.text !== 'string') throw inputError('/text', 'must be a string');
    const top = args.top ?? 10;
    if (!Number.isInteger(top) || top < 0 || top > MAX_TOP) {
      throw inputError('/top', `must be an integer from 0 to ${MAX_TOP}`);
    }
    return textStats(args.text, top);
  },
});
